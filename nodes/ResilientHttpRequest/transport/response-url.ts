/**
 * The URL a response came from, as the HTTP client built it: the hop's URL with its query
 * parameters. n8n names a downloaded file's `directory` after it (HTTP Request's
 * prepareBinaryData reads the response's URL), so it is spelled as n8n's serializer spells it
 * (the qs library: RFC 3986 encoding, arrays by index unless Options > Array Format says otherwise).
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

type ArrayFormat = NonNullable<IHttpRequestOptions['arrayFormat']>;

/** qs's RFC 3986 encoder: encodeURIComponent, plus the five characters it leaves alone. */
function encode(text: string): string {
	return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An array entry's key (comma-joined arrays never get here). */
function arrayKey(key: string, index: number, format: ArrayFormat): string {
	if (format === 'repeat') return key;
	return format === 'brackets' ? `${key}[]` : `${key}[${index}]`;
}

/** `key=value` pairs of one value: nested objects as key[sub], arrays per the format, undefined left out (as qs does). */
function pairs(key: string, value: unknown, format: ArrayFormat): string[] {
	if (value === undefined) return [];
	if (Array.isArray(value) && format === 'comma') return pairs(key, value.join(','), format);
	if (Array.isArray(value)) return value.flatMap((entry, index) => pairs(arrayKey(key, index, format), entry, format));
	if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([sub, entry]) => pairs(`${key}[${sub}]`, entry, format));
	return [`${encode(key)}=${encode(value === null ? '' : String(value as string | number | boolean))}`];
}

export function responseUrl(url: string, qs: IDataObject, arrayFormat: ArrayFormat | undefined): string {
	const query = Object.entries(qs).flatMap(([key, value]) => pairs(key, value, arrayFormat ?? 'indices'));
	if (query.length === 0) return url;
	const withoutHash = url.split('#')[0];
	return `${withoutHash}${withoutHash.includes('?') ? '&' : '?'}${query.join('&')}`;
}
