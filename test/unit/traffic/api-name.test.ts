/**
 * How an API's controller is named (nodes/shared/n8n/traffic/api-name.ts): by origin and credential,
 * or by the user's scope; the key never shows either.
 */
import type { INode } from 'n8n-workflow';
import { isApiKey, nameApi } from '../../../nodes/shared/n8n/traffic/api-name';

const nodeWith = (credentials: INode['credentials']) => ({ credentials }) as unknown as INode;

describe('the name of an API', () => {
	const node = nodeWith({ httpHeaderAuth: { id: '7', name: 'Key A' }, httpBasicAuth: { id: '8', name: 'Key B' } });

	it('is its host for the log, and a key that is neither the origin nor the credential', () => {
		const api = nameApi(new URL('https://api.example.com/v1/items?q=1'), node, 'httpHeaderAuth', '');
		expect(api.label).toBe('api.example.com');
		expect(isApiKey(api.key)).toBe(true);
		expect(api.key).not.toMatch(/example|httpHeaderAuth/);
	});

	it('one per origin and credential: another path is the same API, another credential or origin another', () => {
		const key = (url: string, type: string | undefined) => nameApi(new URL(url), node, type, '').key;
		expect(key('https://api.example.com/a', 'httpHeaderAuth')).toBe(key('https://api.example.com/b', 'httpHeaderAuth'));
		expect(key('https://api.example.com/a', 'httpBasicAuth')).not.toBe(key('https://api.example.com/a', 'httpHeaderAuth'));
		expect(key('https://api.example.com/a', undefined)).not.toBe(key('https://api.example.com/a', 'httpHeaderAuth'));
		expect(key('https://other.example.com/a', 'httpHeaderAuth')).not.toBe(key('https://api.example.com/a', 'httpHeaderAuth'));
	});

	it('a scope makes one API of whatever shares it, and the log does not show it (it may hold a secret)', () => {
		const a = nameApi(new URL('https://a.example.com/'), node, 'httpHeaderAuth', 'team-quota');
		const b = nameApi(new URL('https://b.example.com/'), node, undefined, 'team-quota');
		expect(a).toEqual(b);
		expect(a.label).toBe('its scope');
	});

	it('a key is told from a host', () => {
		expect(isApiKey('api.example.com')).toBe(false);
		expect(isApiKey(`api:${'0'.repeat(31)}`)).toBe(false);
	});
});
