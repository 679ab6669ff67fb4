/**
 * As an AI agent's tool, HTTP Request Tool's *Optimize Response* settings of an item, read and
 * checked before any request (output/tool-answer.ts shapes the answer by them).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { JsonOptimizer, ToolAnswer } from '../types';

/**
 * The tool settings of item i, or undefined when the node does not run as a tool (`asTool`: read
 * once per run, since ctx.getNode() copies the whole node). Read before any request: an Expected
 * Response Type this node cannot carry out fails first, naming it.
 */
export function readToolAnswer(ctx: IExecuteFunctions, i: number, asTool: boolean): ToolAnswer | undefined {
	if (!asTool) return undefined;
	if (ctx.getNodeParameter('optimizeResponse', i, false) !== true) return {};
	const responseType = String(ctx.getNodeParameter('responseType', i, 'json'));
	if (responseType !== 'json') {
		throw new NodeOperationError(ctx.getNode(), `Expected Response Type "${responseType}" is not supported by Resilient HTTP Request: nothing was sent (item ${i})`, {
			itemIndex: i,
			description: `Item ${i}: set Expected Response Type to JSON, or turn Optimize Response off (HTTP Request Tool's HTML and Text optimizers need HTML parsers that n8n does not lend to community nodes).`,
		});
	}
	const fieldsToInclude = String(ctx.getNodeParameter('fieldsToInclude', i, 'all')) as JsonOptimizer['fieldsToInclude'];
	const rawFields = fieldsToInclude === 'all' ? '' : ctx.getNodeParameter('fields', i, '');
	const fields = (Array.isArray(rawFields) ? rawFields.map(String) : String(rawFields).split(',')).map((field) => field.trim()).filter((field) => field !== '');
	return { optimize: { dataField: String(ctx.getNodeParameter('dataField', i, '')).trim(), fieldsToInclude, fields } };
}
