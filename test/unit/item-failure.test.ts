/** Reading what failed from an item that reached a retry loop (Backoff Delay). */
import { parseWaitValue, readItemFailure } from '../../nodes/shared/core/item-failure';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('error codes on the item', () => {
	it.each(['UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE'])('%s is read as it is, so that it is classified like in the HTTP node', (code) => {
		expect(readItemFailure({ error: { code, message: 'other side closed' } }, NOW)).toMatchObject({ failed: true, code });
	});

	it("axios' status error codes say nothing of the failure and are dropped", () => {
		expect(readItemFailure({ error: { code: 'ERR_BAD_RESPONSE', status: 503 } }, NOW).code).toBeUndefined();
		expect(readItemFailure({ error: { code: 'ERR_BAD_REQUEST', status: 404 } }, NOW).code).toBeUndefined();
	});
});

describe('where the failure and the wait are found', () => {
	it('Resilient HTTP Request error output: status, code, verdict and its absolute retryAt', () => {
		const retryAt = new Date(NOW + 90_000).toISOString();
		expect(readItemFailure({ error: { status: 429, statusText: 'Too Many Requests', reason: 'retry-after-too-long', retryAt, retryAfterMs: 1 } }, NOW)).toEqual({
			failed: true,
			status: 429,
			statusText: 'Too Many Requests',
			resilientReason: 'retry-after-too-long',
			serverDelay: { delayMs: 90_000, header: 'retryAt', kind: 'retry-after' },
		});
	});

	it("n8n's HTTP Request full response with Never Error: the status and Retry-After of the headers", () => {
		expect(readItemFailure({ statusCode: 503, statusMessage: 'Service Unavailable', headers: { 'Retry-After': '5' } }, NOW)).toMatchObject({ failed: true, status: 503, serverDelay: { delayMs: 5000, header: 'retry-after' } });
		expect(readItemFailure({ statusCode: 200, headers: {} }, NOW)).toEqual({ failed: false, status: 200 });
	});

	it("HTTP Request's error (and this node's, in its shape): the status text of its response, the waits of its body held as text", () => {
		const error = { name: 'AxiosError', status: 429, statusCode: 429, error: '{"retry_after":7}', response: { status: 429, statusText: 'Too Many Requests', headers: {} } };
		expect(readItemFailure({ error }, NOW)).toMatchObject({ failed: true, status: 429, statusText: 'Too Many Requests', serverDelay: { delayMs: 7000 } });
	});

	it('an error that is only text, and an item that says nothing, are failures', () => {
		expect(readItemFailure({ error: 'not ready yet' }, NOW)).toEqual({ failed: true, message: 'not ready yet' });
		expect(readItemFailure({ id: 1 }, NOW)).toEqual({ failed: true });
	});
});

describe('parseWaitValue (Server-Requested Wait)', () => {
	it.each([
		[12_000, 12_000],
		['5', 5000],
		[new Date(NOW + 3000).toUTCString(), 3000],
		[new Date(NOW + 4000).toISOString(), 4000],
		['', undefined],
		[null, undefined],
	])('%j is %j ms', (value, ms) => {
		expect(parseWaitValue(value, NOW)).toBe(ms);
	});

	it.each([-5, 'whenever', '-1', { ms: 1 }])('%j is refused with what is expected', (value) => {
		expect(() => parseWaitValue(value, NOW)).toThrow(/must be/);
	});
});
