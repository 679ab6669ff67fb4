/**
 * HTTP Request parameters the node declares (so that n8n keeps them) but does not carry out yet.
 * A node that sets one fails before any request, saying what is not supported, instead of
 * sending a request that does something else than the user asked for.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

interface Unsupported {
	/** What the user set, in the editor's words. */
	what: string;
	isSet(options: IDataObject): boolean;
	instead: string;
}

const UNSUPPORTED: Unsupported[] = [
	{
		what: 'Options > Pagination',
		isSet: (options) => {
			const pagination = (options.pagination as IDataObject | undefined)?.pagination as IDataObject | undefined;
			// HTTP Request's default mode once the option is added is "Update a Parameter in Each Request"
			return pagination !== undefined && (pagination.paginationMode ?? 'updateAParameterInEachRequest') !== 'off';
		},
		instead: 'set its Pagination Mode to Off, or keep the HTTP Request node for this request (it fetches the pages; the node does not retry them)',
	},
];

/** Throws a NodeOperationError naming the first unsupported parameter the item sets. */
export function refuseUnsupportedParameters(ctx: IExecuteFunctions, i: number): void {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	for (const entry of UNSUPPORTED) {
		if (!entry.isSet(options)) continue;
		throw new NodeOperationError(ctx.getNode(), `${entry.what} is not supported by Resilient HTTP Request yet: nothing was sent (item ${i})`, {
			itemIndex: i,
			description: `Item ${i}: ${entry.instead}.`,
		});
	}
}
