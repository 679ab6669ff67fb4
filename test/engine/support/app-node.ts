/**
 * An app node as n8n's are written (n8n's OpenAI node, Google Sheets...), for the engine, where
 * n8n's AI nodes are not installed: one call per item with n8n's request helper (a POST of `body`
 * when it is set), a failure wrapped in NodeApiError, and under On Error: Continue only its message
 * handed on (`{ error: message }`), as n8n's OpenAI node's router does.
 */
import { NodeApiError, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type JsonObject } from 'n8n-workflow';

export const APP_NODE = 'test.appNode';

export const appNode: INodeType = {
	description: {
		displayName: 'App',
		name: 'appNode',
		group: ['transform'],
		version: 1,
		description: '',
		defaults: { name: 'App' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '' },
		],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			try {
				const body = this.getNodeParameter('body', i, '') as string | IDataObject;
				const request = body === '' ? { url: this.getNodeParameter('url', i) as string, json: true } : { method: 'POST' as const, url: this.getNodeParameter('url', i) as string, body: typeof body === 'string' ? (JSON.parse(body) as IDataObject) : body, json: true };
				const answer = (await this.helpers.httpRequest(request)) as IDataObject;
				out.push({ json: answer, pairedItem: { item: i } });
			} catch (error) {
				const wrapped = new NodeApiError(this.getNode(), error as JsonObject);
				if (!this.continueOnFail()) throw wrapped;
				out.push({ json: { error: wrapped.message }, pairedItem: { item: i } });
			}
		}
		return [out];
	},
};
