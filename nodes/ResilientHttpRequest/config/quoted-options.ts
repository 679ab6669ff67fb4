/**
 * What HTTP Request's thrown error quotes of the item's Options beside the request itself (its
 * `context.request`, built by output/request-context.ts): read once, with the item's config.
 */
import type { IDataObject } from 'n8n-workflow';
import type { OutputSettings } from './output-settings';

/** What HTTP Request's request options say beside the request itself, from the item's Options (read once by its config). */
export interface QuotedOptions {
	readonly follow: boolean;
	readonly fields: Readonly<IDataObject>;
}

/** The options' part of the quote, as HTTP Request (4.1+) sets them from the same Options. */
export function quotedOptions(options: IDataObject, output: OutputSettings, sendCredentialsCrossOrigin: boolean): QuotedOptions {
	const redirect = ((options.redirect as IDataObject | undefined)?.redirect ?? undefined) as IDataObject | undefined;
	const follow = redirect === undefined || redirect.followRedirects === true;
	const format = output.response.format;
	const streamed = format === 'autodetect' || format === 'file';
	return Object.freeze({
		follow,
		fields: Object.freeze({
			gzip: true,
			rejectUnauthorized: options.allowUnauthorizedCerts !== true,
			followRedirect: follow,
			// HTTP Request copies a Max Redirects that is set, followed or not
			...(redirect?.maxRedirects ? { maxRedirects: redirect.maxRedirects } : {}),
			...(output.neverError ? { simple: false } : {}),
			resolveWithFullResponse: true,
			sendCredentialsOnCrossOriginRedirect: sendCredentialsCrossOrigin,
			timeout: typeof options.timeout === 'number' && options.timeout > 0 ? options.timeout : 300_000,
			...(streamed ? { encoding: null, json: false, useStream: true } : { json: true }),
		}),
	});
}
