/**
 * What n8n's helpers threw once the item's request was under way (a credential refused for the
 * host, a Next URL that is no URL, the same page again and again): HTTP Request receives it as
 * its request's rejection, so its error item holds the error itself, and its thrown error is a
 * NodeApiError built from it that quotes the request (thrown-errors.ts settles it).
 */
import type { IDataObject } from 'n8n-workflow';

export class RequestRejection extends Error {
	/** The request as the thrown error quotes it (HTTP Request's context.request), when there is one. */
	context?: IDataObject;

	constructor(readonly reason: Error) {
		super(reason.message);
	}
}
