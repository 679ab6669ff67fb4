import { BackoffDelay } from '../../nodes/BackoffDelay/BackoffDelay.node';
import { ResilientHttpRequest, TOOL_DESCRIPTION } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { optimizeJson, runsAsTool, toolFailureAccount } from '../../nodes/ResilientHttpRequest/output/tool-answer';
import type { JsonOptimizer } from '../../nodes/ResilientHttpRequest/types';

const all = (dataField = ''): JsonOptimizer => ({ dataField, fieldsToInclude: 'all', fields: [] });

describe("optimizeJson: HTTP Request Tool's JSON optimizer, same rules", () => {
	it('an object is one record; an array is its records', () => {
		expect(optimizeJson({ a: 1 }, all())).toEqual({ ok: true, records: [{ a: 1 }] });
		expect(optimizeJson([{ a: 1 }, { a: 2 }], all())).toEqual({ ok: true, records: [{ a: 1 }, { a: 2 }] });
	});

	it('Field Containing Data: its array, or [its value]; on an array, that field of each record', () => {
		expect(optimizeJson({ records: [{ id: 1 }, { id: 2 }], next: 'x' }, all('records'))).toEqual({ ok: true, records: [{ id: 1 }, { id: 2 }] });
		expect(optimizeJson({ record: { id: 1 } }, all('record'))).toEqual({ ok: true, records: [{ id: 1 }] });
		expect(optimizeJson([{ data: { id: 1 } }, { data: { id: 2 } }], all('data'))).toEqual({ ok: true, records: [{ id: 1 }, { id: 2 }] });
	});

	it('a missing Field Containing Data fails, listing the fields the response has', () => {
		expect(optimizeJson({ items: [], count: 0 }, all('records'))).toEqual({ ok: false, message: 'Target field "records" not found in response.', description: 'The response contained these fields: [items, count]' });
	});

	it('Include Fields: Selected keeps the named fields (dot notation), Except drops them', () => {
		const body = [
			{ id: 1, name: 'a', address: { city: 'Paris', zip: '75001' }, secret: 's' },
			{ id: 2, name: 'b', address: { city: 'Lyon', zip: '69001' }, secret: 't' },
		];
		expect(optimizeJson(body, { dataField: '', fieldsToInclude: 'selected', fields: ['id', 'address.city'] })).toEqual({
			ok: true,
			records: [
				{ id: 1, address: { city: 'Paris' } },
				{ id: 2, address: { city: 'Lyon' } },
			],
		});
		expect(optimizeJson(structuredClone(body), { dataField: '', fieldsToInclude: 'except', fields: ['secret', 'address.zip'] })).toEqual({
			ok: true,
			records: [
				{ id: 1, name: 'a', address: { city: 'Paris' } },
				{ id: 2, name: 'b', address: { city: 'Lyon' } },
			],
		});
	});

	it('a field path never reaches an object prototype', () => {
		const result = optimizeJson([{ id: 1 }], { dataField: '', fieldsToInclude: 'selected', fields: ['__proto__.polluted', 'constructor'] });
		expect(result.ok).toBe(true);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it('text that is JSON is parsed; other text and scalars fail without quoting the body', () => {
		expect(optimizeJson('{"a":1}', all())).toEqual({ ok: true, records: [{ a: 1 }] });
		const text = optimizeJson('<html>token=abc123</html>', all());
		expect(text.ok).toBe(false);
		expect(JSON.stringify(text)).not.toContain('abc123');
		expect(optimizeJson(42, all())).toMatchObject({ ok: false, message: 'The response type must be an object or an array of objects' });
		expect(optimizeJson(null, all())).toMatchObject({ ok: false });
	});
});

describe('toolFailureAccount: what the model reads when the request failed', () => {
	const request = { method: 'GET', url: 'https://api.example.com/v1/weather/Paris?api_key=k&units=metric' };
	const base = { attempts: 1, maxAttempts: 3, elapsedMs: 40 };

	it('a wait too long to sleep: status, attempts, the requested wait and what to do', () => {
		const account = toolFailureAccount(
			request,
			{
				message: 'The server asked to wait 1 h (retry-after), more than Max Server-Requested Delay (1 min); last response 429 Too Many Requests',
				status: 429,
				statusText: 'Too Many Requests',
				retryAfterMs: 3_600_000,
				retryAt: '2026-12-01T18:00:00.000Z',
				body: { error: 'rate limited' },
			},
			{ ...base, stoppedBecause: 'retry-after-too-long', summary: 'unused' },
		);
		expect(account).toEqual({
			error:
				'GET https://api.example.com/v1/weather/Paris failed: HTTP 429 Too Many Requests, 1 of 3 attempts in 40 ms. The server asked to wait 1 h (retry-after), more than Max Server-Requested Delay (1 min); last response 429 Too Many Requests. The server asked to retry after 3600 s (at 2026-12-01T18:00:00.000Z): do not call this tool again before then. Server\'s answer: {"error":"rate limited"}',
			status: 429,
			statusText: 'Too Many Requests',
			attempts: 1,
			maxAttempts: 3,
			reason: 'retry-after-too-long',
			retryAfterSeconds: 3600,
			retryAt: '2026-12-01T18:00:00.000Z',
			serverAnswer: '{"error":"rate limited"}',
		});
	});

	it('never shows the query string (it may hold a key)', () => {
		const account = toolFailureAccount(request, { status: 503 }, { ...base, stoppedBecause: 'attempts-exhausted', summary: 'Gave up' });
		expect(account.error).not.toContain('api_key');
		expect(account.error).not.toContain('units');
	});

	it.each([
		['attempts-exhausted', 503, 'The service is failing or overloaded: try again later.'],
		['final-status', 400, 'The server refused this request: change its arguments rather than sending it again.'],
		['final-status', 401, 'Access was refused: calling again will not help.'],
		['final-status', 404, 'Nothing was found at this URL: check the values you passed.'],
		['final-status', 500, 'The server failed on this request: calling again with the same arguments is unlikely to help.'],
		['not-safe-to-retry', 502, 'The request may have been processed: check before sending it again.'],
	] as const)('%s %d: %s', (reason, status, advice) => {
		const account = toolFailureAccount(request, { status, message: 'Stopped' }, { ...base, attempts: 3, stoppedBecause: reason, summary: 'Stopped' });
		expect(account.error).toContain(`HTTP ${status}, 3 of 3 attempts in 40 ms.`);
		expect(account.error).toContain(advice);
		expect(account).not.toHaveProperty('retryAfterSeconds');
	});

	it('a network error: its code, and no status', () => {
		const account = toolFailureAccount(request, { code: 'ECONNREFUSED', message: 'error ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9 is not a transient failure' }, { ...base, stoppedBecause: 'not-retryable-error', summary: 'x' });
		expect(account.error).toMatch(/^GET https:\/\/api\.example\.com\/v1\/weather\/Paris failed: ECONNREFUSED, 1 of 3 attempts/);
		expect(account.error).toContain('The service could not be reached.');
		expect(account).not.toHaveProperty('status');
		expect(account.code).toBe('ECONNREFUSED');
	});

	it("cuts the server's answer and the URL short, and flattens whitespace", () => {
		const account = toolFailureAccount({ method: 'POST', url: `https://x.test/${'a'.repeat(500)}` }, { status: 400, body: `line one\n\n   ${'b'.repeat(1000)}` }, { ...base, stoppedBecause: 'final-status', summary: 'x' });
		expect(account.serverAnswer).toHaveLength(301);
		expect(account.serverAnswer?.startsWith('line one b')).toBe(true);
		expect(account.error.length).toBeLessThan(800);
	});
});

describe('runsAsTool', () => {
	it("is told by n8n's type name of the tool variant", () => {
		expect(runsAsTool({ type: 'n8n-nodes-resilient-http.resilientHttpRequestTool' })).toBe(true);
		expect(runsAsTool({ type: 'n8n-nodes-resilient-http.resilientHttpRequest' })).toBe(false);
	});
});

describe('the node descriptions n8n turns into tools', () => {
	it('Resilient HTTP Request is offered as a tool, with its description as the default for the model; Backoff Delay is not', () => {
		const http = new ResilientHttpRequest().description;
		expect(http.usableAsTool).toBe(true);
		expect(http.description).toBe(TOOL_DESCRIPTION);
		expect(new BackoffDelay().description.usableAsTool).toBeUndefined();
	});

	it("Optimize Response's parameters show only on the tool variant, under HTTP Request Tool's names", () => {
		const names = ['optimizeResponse', 'responseType', 'dataField', 'fieldsToInclude', 'fields'];
		const properties = new ResilientHttpRequest().description.properties.filter((p) => names.includes(p.name));
		expect(properties.map((p) => p.name)).toEqual(names);
		for (const property of properties) expect(property.displayOptions?.show?.['@tool']).toEqual([true]);
	});
});
