/** Reading what failed from an item that reached a retry loop (Backoff Delay). */
import { NodeApiError, type JsonObject } from 'n8n-workflow';
import { N8N_STATUS_HEADLINES, parseWaitValue, readItemFailure, statusOfN8nHeadline } from '../../nodes/shared/core/item-failure';

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

describe("n8n's status headlines (a node's continue-on-fail item holds only the message)", () => {
	const node = { id: 'n', name: 'OpenAI', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
	const statuses = [400, 401, 402, 403, 404, 405, 429, 500, 502, 503, 504];

	it.each(statuses)('the headline n8n-workflow\'s NodeApiError gives a %i is read back as that status', (status) => {
		const error = new NodeApiError(node, { message: 'upstream text', httpCode: String(status) } as unknown as JsonObject);
		expect(statusOfN8nHeadline(error.message)).toBe(status);
		expect(readItemFailure({ error: error.message }, 0)).toEqual({ failed: true, message: error.message, status });
		expect(readItemFailure({ error: { message: error.message } }, 0).status).toBe(status);
	});

	it('the table is n8n\'s whole table of single statuses (no headline left out, none invented)', () => {
		const fromN8n = statuses.map((status) => new NodeApiError(node, { httpCode: String(status) } as unknown as JsonObject).message);
		expect(N8N_STATUS_HEADLINES.map(([headline]) => headline).sort()).toEqual([...fromN8n].sort());
	});

	it('the class-only headlines (4XX, 5XX) and other messages name no status', () => {
		for (const httpCode of ['418', '599']) {
			const error = new NodeApiError(node, { httpCode } as unknown as JsonObject);
			expect(statusOfN8nHeadline(error.message)).toBeUndefined();
		}
		expect(readItemFailure({ error: 'OpenAI: Rate limit reached' }, 0)).toEqual({ failed: true, message: 'OpenAI: Rate limit reached' });
	});
});
