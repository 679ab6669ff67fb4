/**
 * A file response as HTTP Request stores it: through n8n's prepareBinaryData, named by the
 * Content-Disposition or else the path of the URL that answered (after redirects), its
 * `directory` that URL, then HTTP Request's own naming rule (setFilename) for a file that got no
 * name: the request URL's last segment when it ends with the extension, else `data.<extension>`.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { Readable } from 'node:stream';
import type { HttpResponse } from '../types';
import { contentTypeOf } from './response-body';

/** `a=1; b="x y"` parameters as n8n's parseIncomingMessage reads them (keys lowercased, values URI-decoded). */
function headerParameters(parameters: string[]): Record<string, string> {
	const out: Record<string, string> = {};
	for (const parameter of parameters) {
		const eq = parameter.indexOf('=');
		if (eq === -1) continue;
		let value = parameter.slice(eq + 1).trim();
		const quoted = value.startsWith('"') && value.endsWith('"');
		if (quoted) value = value.slice(1, -1);
		try {
			value = decodeURIComponent(value);
		} catch {
			// kept as sent, as n8n does
		}
		if (!quoted && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
		out[parameter.slice(0, eq).toLowerCase().trim()] = value;
	}
	return out;
}

/** The file name of a Content-Disposition (`filename*=UTF-8''r%C3%A9sum%C3%A9.zip` wins over `filename`). */
function dispositionFileName(response: HttpResponse): string | undefined {
	const header = response.headers['content-disposition'];
	if (typeof header !== 'string' || header === '') return undefined;
	const disposition = header.startsWith('attachment') || header.startsWith('inline') ? header : `attachment; ${header}`;
	const parameters = headerParameters(disposition.split(';').slice(1));
	const extended = parameters['filename*'];
	return extended ? extended.split("'")[2] : parameters.filename;
}

/** The answering URL without user and password, and the name its path gives (the path without its leading slash). */
function answeringUrl(url: string): { href: string; pathName: string } {
	const parsed = new URL(url);
	parsed.username = '';
	parsed.password = '';
	return { href: parsed.toString(), pathName: parsed.pathname.slice(1) };
}

/** HTTP Request's setFilename, for a file prepareBinaryData left without a name. */
function fallbackFileName(binary: IBinaryData, requestUrl: string, outputField: string): string | undefined {
	if (binary.fileName || !binary.fileExtension) return binary.fileName;
	if (requestUrl.endsWith(binary.fileExtension)) return requestUrl.split('/').pop();
	return `${outputField}.${binary.fileExtension}`;
}

/**
 * `requestUrl`: the URL the item asked for (HTTP Request's setFilename reads it, not the final one).
 * The bytes go in as a stream, as HTTP Request's do: for a Buffer without a type, n8n would sniff
 * the bytes (HTTP Request never does; its type is the header's, the name's, or text/plain).
 */
export async function prepareResponseFile(ctx: IExecuteFunctions, response: HttpResponse, requestUrl: string, outputField: string): Promise<IBinaryData> {
	const { href, pathName } = answeringUrl(response.url ?? requestUrl);
	const name = dispositionFileName(response) ?? pathName;
	// HTTP Request's mimeTypeFromResponse: the type before any space or parameter, as sent
	const mimeType = contentTypeOf(response).split(' ')[0].split(';')[0] || undefined;
	const binary = await ctx.helpers.prepareBinaryData(Readable.from([response.body]), name || undefined, mimeType);
	if (name) binary.directory = href;
	const fileName = fallbackFileName(binary, requestUrl, outputField);
	if (fileName !== undefined) binary.fileName = fileName;
	return binary;
}
