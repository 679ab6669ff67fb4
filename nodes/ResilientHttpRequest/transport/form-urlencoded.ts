/**
 * A Form URL Encoded body as HTTP Request sends it: its fields go through the `qs` package's
 * stringify (n8n's request helper), so a space is %20 (not +), a repeated name is an array sent as
 * `a[0]=1&a[1]=2`, and an object field nests as `o[x]=1`. Written out here because the node has no
 * runtime dependency on `qs`; test/unit/form-urlencoded.test.ts proves it against `qs` itself.
 */
import type { IDataObject } from 'n8n-workflow';

/** qs's RFC 3986 encoder: everything but letters, digits and `-_.~` percent-encoded, as UTF-8. */
function encode(text: string): string {
	const wellFormed = (text as string & { toWellFormed?: () => string }).toWellFormed?.() ?? text;
	return encodeURIComponent(wellFormed).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function appendPairs(key: string, value: unknown, out: string[]): void {
	if (value === undefined) return;
	if (value === null) {
		out.push(`${encode(key)}=`);
	} else if (value instanceof Date) {
		out.push(`${encode(key)}=${encode(value.toISOString())}`);
	} else if (Array.isArray(value)) {
		value.forEach((entry, index) => appendPairs(`${key}[${index}]`, entry, out));
	} else if (typeof value === 'object') {
		for (const [name, entry] of Object.entries(value)) appendPairs(`${key}[${name}]`, entry, out);
	} else {
		out.push(`${encode(key)}=${encode(String(value as string | number | boolean))}`);
	}
}

/** The body text of `fields`, as `qs.stringify(fields)` writes it. */
export function stringifyForm(fields: IDataObject): string {
	const out: string[] = [];
	for (const [name, value] of Object.entries(fields)) appendPairs(name, value, out);
	return out.join('&');
}
