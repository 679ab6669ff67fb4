/**
 * The Traffic Control node's *API* parameter: every form a user may name an API in finds its
 * controller by the key and the label the store keeps (label = url.host, api-name.ts).
 */
import { apiMatches, readApiFilter } from '../../../nodes/TrafficControl/api-filter';

const KEY = `api:${'ab'.repeat(16)}`;
const names = (text: string, label: string | undefined, key = KEY) => apiMatches(readApiFilter(text), key, label);

describe('the API parameter names a controller', () => {
	it.each([
		['the host alone, any port', '127.0.0.1', '127.0.0.1:8787'],
		['host:port', '127.0.0.1:8787', '127.0.0.1:8787'],
		['host:port with a path', '127.0.0.1:8787/orders/1?x=1', '127.0.0.1:8787'],
		['a URL on it', 'http://127.0.0.1:8787/anything', '127.0.0.1:8787'],
		['an origin', 'http://127.0.0.1:8787', '127.0.0.1:8787'],
		['the label, another case', 'API.GitHub.com', 'api.github.com'],
		['a host name in capitals, any port', 'LOCALHOST', 'localhost:3000'],
		['the default https port given', 'api.github.com:443', 'api.github.com'],
		['the default http port given', 'api.github.com:80', 'api.github.com'],
		['a URL with its default port', 'https://api.github.com:443/repos', 'api.github.com'],
		['an https origin', 'https://api.github.com', 'api.github.com'],
		['a protocol-relative URL', '//api.github.com/x', 'api.github.com'],
		['an IPv6 host alone', '[::1]', '[::1]:8080'],
		['an IPv6 URL', 'http://[::1]:8080/x', '[::1]:8080'],
		['an international name', 'http://bücher.example/x', 'xn--bcher-kva.example'],
		['the scope label', 'Its Scope', 'its scope'],
		['a host named api, with its port', 'api:8080', 'api:8080'],
		['a host named api, any port', 'api', 'api:8080'],
	])('%s: %s names %s', (_form, text, label) => {
		expect(names(text, label)).toBe(true);
	});

	it('a key, in any case, names its controller whatever its label', () => {
		expect(names(KEY, 'api.github.com')).toBe(true);
		expect(names(KEY.toUpperCase(), undefined)).toBe(true);
		expect(names(`api:${'cd'.repeat(16)}`, 'api.github.com')).toBe(false);
	});

	it.each([
		['another host', 'api.gitlab.com', 'api.github.com'],
		['a host that only ends like it', 'github.com', 'api.github.com'],
		['another port', '127.0.0.1:9999', '127.0.0.1:8787'],
		['a URL names its port: none is the default', 'http://127.0.0.1/x', '127.0.0.1:8787'],
		['a port given against a label with none', 'api.github.com:8443', 'api.github.com'],
		['a host against a scope', 'api.github.com', 'its scope'],
		['text that is no host', 'not a host', 'api.github.com'],
	])('%s: %s does not name %s', (_form, text, label) => {
		expect(names(text, label)).toBe(false);
	});

	it('a URL that does not parse is refused', () => {
		expect(() => readApiFilter('http://exa mple.com/')).toThrow();
	});
});
