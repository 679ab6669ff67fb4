/**
 * The URL a response came from, as the HTTP client built it: the hop's URL with its query
 * parameters. n8n names a downloaded file's `directory` after it (HTTP Request's
 * prepareBinaryData reads the response's URL), so it is spelled as n8n's serializer spells it
 * (the qs library: RFC 3986 encoding, arrays by index unless Options > Array Format says otherwise).
 */
import type { IDataObject } from 'n8n-workflow';
import { qsPairs, type ArrayFormat } from './form-urlencoded';

export function responseUrl(url: string, qs: IDataObject, arrayFormat: ArrayFormat | undefined): string {
	const query = Object.entries(qs).flatMap(([key, value]) => qsPairs(key, value, arrayFormat ?? 'indices'));
	if (query.length === 0) return url;
	const withoutHash = url.split('#')[0];
	return `${withoutHash}${withoutHash.includes('?') ? '&' : '?'}${query.join('&')}`;
}
