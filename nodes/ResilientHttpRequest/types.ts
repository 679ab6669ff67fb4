/**
 * What several folders of the node work with, kept below all of them, so that no folder imports a
 * higher one for a type: the request and its response, how a response is read and answered, the
 * sender of an item's requests, and the error for a request n8n's helpers refused under way.
 */
import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';
import type { RetryOutcome } from '../shared/core/retry-loop';

/** An item's request, read once from its parameters (config/request-spec.ts) and sent unchanged on every attempt. */
export interface RequestSpec {
	method: IHttpRequestMethods;
	url: string;
	qs: IDataObject;
	headers: Record<string, string>;
	body?: string | Buffer;
	arrayFormat?: 'indices' | 'brackets' | 'repeat';
	/** The Accept header is HTTP Request's default, not the user's (n8n's OAuth1 helper replaces it). */
	acceptIsDefault?: true;
}

/** A header's value, whatever the case of its name; undefined when absent. */
export function headerValue(headers: Record<string, string>, name: string): string | undefined {
	const key = Object.keys(headers).find((h) => h.toLowerCase() === name.toLowerCase());
	return key === undefined ? undefined : headers[key];
}

export interface HttpResponse {
	statusCode: number;
	statusMessage: string;
	headers: Record<string, unknown>;
	body: Buffer;
	/**
	 * The URL that answered: the last hop's, after redirects, query included. Absent where a
	 * response was rebuilt from a failure; n8n names a downloaded file after it.
	 */
	url?: string;
}

/** Sends one of an item's requests (its own, or a page) through the retry loop. */
export type ItemSender = (request: RequestSpec) => Promise<RetryOutcome<HttpResponse>>;

export type ResponseFormat = 'autodetect' | 'json' | 'text' | 'file';

export interface ResponseSettings {
	format: ResponseFormat;
	fullResponse: boolean;
	outputPropertyName: string;
	/** Options > Response > Never Error: also an invalid JSON body is an answer ({}), as in HTTP Request. */
	neverError: boolean;
}

export interface JsonOptimizer {
	dataField: string;
	fieldsToInclude: 'all' | 'selected' | 'except';
	fields: string[];
}

/** How the node answers as an AI agent's tool. */
export interface ToolAnswer {
	/** HTTP Request Tool's *Optimize Response* (JSON), when on. */
	optimize?: JsonOptimizer;
}

/**
 * What n8n's helpers threw once the item's request was under way (a credential refused for the
 * host, a Next URL that is no URL, the same page again and again): HTTP Request receives it as
 * its request's rejection, so its error item holds the error itself, and its thrown error is a
 * NodeApiError built from it that quotes the request (thrown-errors.ts settles it).
 */
export class RequestRejection extends Error {
	/** The request as the thrown error quotes it (HTTP Request's context.request), when there is one. */
	context?: IDataObject;

	constructor(readonly reason: Error) {
		super(reason.message);
	}
}
