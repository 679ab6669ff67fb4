/**
 * Tiny node types that exercise n8n-core features from inside a node, so the harness tests can
 * prove that what a real node would call actually works in process.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

export const PROBE_PREFIX = 'engine-test.';

function describe(name: string, extra: Partial<INodeTypeDescription> = {}): INodeTypeDescription {
	return {
		displayName: name,
		name,
		group: ['transform'],
		version: 1,
		description: `Engine harness probe: ${name}`,
		defaults: { name },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'URL', name: 'url', type: 'string', default: '' }],
		...extra,
	};
}

/**
 * GETs `url` with `httpRequestWithAuthentication('httpHeaderAuth')`, passing its own abort signal,
 * and reports what n8n-core did to the request options.
 */
export class AuthRequestProbe implements INodeType {
	description = describe('authRequestProbe', {
		credentials: [{ name: 'httpHeaderAuth', required: true }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const ownController = new AbortController();
		const options: IHttpRequestOptions = {
			url: this.getNodeParameter('url', 0) as string,
			method: 'GET',
			json: true,
			abortSignal: ownController.signal,
		};
		// Helpers are not bound to the context: n8n nodes must call them with `.call(this, ...)`.
		const body = (await this.helpers.httpRequestWithAuthentication.call(this, 'httpHeaderAuth', options)) as IDataObject;
		return [
			[
				{
					json: {
						body,
						ownSignalKept: options.abortSignal === ownController.signal,
						executionSignalUsed: options.abortSignal === this.getExecutionCancelSignal(),
					},
				},
			],
		];
	}
}

/** Stores each input item's `text` as binary, then reads it back through getBinaryDataBuffer. */
export class BinaryProbe implements INodeType {
	description = describe('binaryProbe');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const output: INodeExecutionData[] = [];
		for (let index = 0; index < items.length; index++) {
			const text = String(items[index].json.text);
			// Pass the MIME type: without it n8n-core sniffs with `await import('file-type')`, an ESM
			// import that Jest's CommonJS runtime cannot perform.
			const binary = await this.helpers.prepareBinaryData(Buffer.from(text), 'probe.txt', 'text/plain');
			output.push({ json: { text }, binary: { data: binary }, pairedItem: { item: index } });
		}
		return [output];
	}
}

/** Reads back the binary produced by BinaryProbe (a separate node, as a real consumer would). */
export class BinaryReadProbe implements INodeType {
	description = describe('binaryReadProbe');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const output: INodeExecutionData[] = [];
		for (let index = 0; index < items.length; index++) {
			const buffer = await this.helpers.getBinaryDataBuffer(index, 'data');
			output.push({ json: { readBack: buffer.toString('utf8') }, pairedItem: { item: index } });
		}
		return [output];
	}
}

export interface CancelObservation {
	abortedBefore: boolean;
	abortedAfter: boolean;
	/** What ended the node's wait: n8n's cancellation handler, or its own 10 s timer. */
	endedBy: 'cancellation' | 'timer';
}

/**
 * Waits (up to 10 s) for the execution cancel signal and records what it saw in `observations`,
 * which the test reads after the run. A factory, because `execute` runs with the execution
 * context as `this`, not the node instance.
 */
export function createCancelProbe(observations: CancelObservation[]): INodeType {
	return {
		description: describe('cancelProbe'),
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const signal = this.getExecutionCancelSignal();
			const abortedBefore = signal?.aborted ?? false;
			const endedBy = await new Promise<CancelObservation['endedBy']>((resolve) => {
				const timer = setTimeout(() => resolve('timer'), 10_000);
				this.onExecutionCancellation(() => {
					clearTimeout(timer);
					resolve('cancellation');
				});
			});
			observations.push({ abortedBefore, abortedAfter: signal?.aborted ?? false, endedBy });
			return [this.getInputData()];
		},
	};
}

/** Throws the NodeApiError a node would throw for an HTTP 503 (the shape engine tests assert on). */
export class ThrowApiErrorProbe implements INodeType {
	description = describe('throwApiErrorProbe');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		throw new NodeApiError(
			this.getNode(),
			{ message: 'Service Unavailable', status: 503 },
			{ httpCode: '503', message: 'The service was not available', description: 'Gave up after 3 attempts' },
		);
	}
}

/**
 * Emits, for each input item, the output shape named by its `variant` field, so a test can pin
 * down how WorkflowExecute routes items between the success and error outputs.
 */
export class ErrorShapeProbe implements INodeType {
	description = describe('errorShapeProbe');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const shapes: Record<string, (item: number) => INodeExecutionData> = {
			onlyErrorKeys: (item) => ({
				json: { error: 'boom', message: 'failed', details: { attempts: 3 } },
				pairedItem: { item },
			}),
			errorPlusOtherKeys: (item) => ({ json: { error: 'boom', attempts: 3 }, pairedItem: { item } }),
			itemErrorField: (item) => ({
				json: { attempts: 3 },
				error: new NodeApiError(this.getNode(), { message: 'x' }, { message: 'Gave up', httpCode: '503' }),
				pairedItem: { item },
			}),
			success: (item) => ({ json: { ok: true }, pairedItem: { item } }),
		};
		return [this.getInputData().map((input, index) => shapes[String(input.json.variant)](index))];
	}
}
