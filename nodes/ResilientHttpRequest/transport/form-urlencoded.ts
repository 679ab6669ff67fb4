/**
 * Fields written as the `qs` package's stringify writes them (n8n's request helper uses it for Form
 * URL Encoded bodies and for query strings): a space is %20 (not +), an array is sent as
 * `a[0]=1&a[1]=2` (or as Options > Array Format asks, for a query), and an object field nests as
 * `o[x]=1`. Written out here because the node has no runtime dependency on `qs`;
 * test/unit/form-urlencoded.test.ts and test/unit/response-url.test.ts prove it against `qs` itself.
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

export type ArrayFormat = NonNullable<IHttpRequestOptions['arrayFormat']>;

/** qs's RFC 3986 encoder: everything but letters, digits and `-_.~` percent-encoded, as UTF-8. */
function encode(text: string): string {
	const wellFormed = (text as string & { toWellFormed?: () => string }).toWellFormed?.() ?? text;
	return encodeURIComponent(wellFormed).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An array entry's key (comma-joined arrays never get here). */
function arrayKey(key: string, index: number, format: ArrayFormat): string {
	if (format === 'repeat') return key;
	return format === 'brackets' ? `${key}[]` : `${key}[${index}]`;
}

/** The `key=value` pairs of one field: nested objects as key[sub], arrays per the format, undefined left out, as qs does. */
export function qsPairs(key: string, value: unknown, format: ArrayFormat = 'indices'): string[] {
	if (value === undefined) return [];
	if (value === null) return [`${encode(key)}=`];
	if (value instanceof Date) return [`${encode(key)}=${encode(value.toISOString())}`];
	if (Array.isArray(value) && format === 'comma') return qsPairs(key, value.join(','), format);
	if (Array.isArray(value)) return value.flatMap((entry, index) => qsPairs(arrayKey(key, index, format), entry, format));
	if (typeof value === 'object') return Object.entries(value).flatMap(([name, entry]) => qsPairs(`${key}[${name}]`, entry, format));
	return [`${encode(key)}=${encode(String(value as string | number | boolean))}`];
}

/** The body text of `fields`, as `qs.stringify(fields)` writes it. */
export function stringifyForm(fields: IDataObject): string {
	return Object.entries(fields)
		.flatMap(([name, value]) => qsPairs(name, value))
		.join('&');
}
