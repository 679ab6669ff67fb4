import { responseUrl } from '../../nodes/ResilientHttpRequest/transport/response-url';

describe('responseUrl: the URL a response came from, query as n8n serializes it', () => {
	it('is the URL itself without query parameters', () => {
		expect(responseUrl('https://api.example.com/files/a.pdf', {}, undefined)).toBe('https://api.example.com/files/a.pdf');
	});

	it('encodes as qs does (RFC 3986: also ! \' ( ) *), after a query the URL already has', () => {
		expect(responseUrl('https://x.test/s?existing=1', { q: "a b&c=d/é?!'()*", n: 5, empty: null, skipped: undefined }, undefined)).toBe(
			'https://x.test/s?existing=1&q=a%20b%26c%3Dd%2F%C3%A9%3F%21%27%28%29%2A&n=5&empty=',
		);
	});

	it.each([
		[undefined, 'ids%5B0%5D=1&ids%5B1%5D=2&f%5Ba%5D=b'],
		['indices', 'ids%5B0%5D=1&ids%5B1%5D=2&f%5Ba%5D=b'],
		['brackets', 'ids%5B%5D=1&ids%5B%5D=2&f%5Ba%5D=b'],
		['repeat', 'ids=1&ids=2&f%5Ba%5D=b'],
		['comma', 'ids=1%2C2&f%5Ba%5D=b'],
	] as const)('arrays and objects, array format %s', (format, query) => {
		expect(responseUrl('https://x.test/s', { ids: [1, 2], f: { a: 'b' } }, format)).toBe(`https://x.test/s?${query}`);
	});
});
