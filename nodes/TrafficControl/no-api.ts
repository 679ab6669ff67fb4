/**
 * What the Traffic Control node says when its *API* parameter names no API of the store: the
 * parameter and the item, where it looked, and the APIs it knows there (label and key: either
 * may be pasted back into *API*), so that a typo or the wrong *Shared State* shows at once.
 */
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import type { TrafficData } from '../shared/core/traffic/controller';
import type { ApiFilter } from './api-filter';

/** The APIs the message lists at most: enough to spot the one meant, short enough to read. */
const LISTED_AT_MOST = 20;

function storeName(ctx: IExecuteFunctions): string {
	return (ctx.getNodeParameter('stateStore', 0, 'memory') as string) === 'redis' ? 'Redis' : "this n8n process's memory";
}

function knownApis(states: ReadonlyArray<{ key: string; data: TrafficData }>, where: string): string {
	if (states.length === 0) return `No API's controller is kept in ${where}: no request has gone out through a Resilient HTTP Request node with this Shared State lately.`;
	const listed = states.slice(0, LISTED_AT_MOST).map(({ key, data }) => `${data.label ?? '(no label)'} (${key})`);
	const more = states.length > LISTED_AT_MOST ? `, and ${states.length - LISTED_AT_MOST} more (Get State lists them all)` : '';
	return `The APIs kept in ${where}: ${listed.join(', ')}${more}.`;
}

/** The item's error: no API of `states` is the one `filter` names. */
export function noApiError(ctx: IExecuteFunctions, i: number, filter: ApiFilter, states: ReadonlyArray<{ key: string; data: TrafficData }>): NodeOperationError {
	const where = storeName(ctx);
	return new NodeOperationError(ctx.getNode(), `Parameter "API" names no API kept in ${where}: got "${filter.text}" (item ${i}). ${knownApis(states, where)}`, {
		itemIndex: i,
		description: `Item ${i}: give "API" a host (with or without its port), host:port, a URL or origin on it, or a label or key (api:…) from Get State; or check Shared State.`,
	});
}

/** Get State found nothing for a filter: no items, as n8n's searches do, and a hint in the output pane saying why. */
export function hintNothingFound(ctx: IExecuteFunctions, error: NodeOperationError): void {
	ctx.addExecutionHints?.({ message: error.message, type: 'info', location: 'outputPane' });
}
