import { classifyNetworkError, classifyStatus, parseStatusList } from '../../nodes/shared/core/classify';
import { RETRY_DEFAULTS } from '../../nodes/shared/core/defaults';

const DEFAULT_LIST = parseStatusList(RETRY_DEFAULTS.retryOnStatuses);

describe('parseStatusList', () => {
	it('the default list is exactly 408, 429, 500, 502, 503, 504, 529', () => {
		expect(RETRY_DEFAULTS.retryOnStatuses).toBe('408, 429, 500, 502, 503, 504, 529');
		const members: number[] = [];
		for (let s = 100; s <= 599; s++) if (DEFAULT_LIST.has(s)) members.push(s);
		expect(members).toEqual([408, 429, 500, 502, 503, 504, 529]);
		expect(DEFAULT_LIST.source).toBe('408, 429, 500, 502, 503, 504, 529');
	});

	it('reads classes like 5xx', () => {
		const set = parseStatusList('5xx');
		for (let s = 100; s <= 599; s++) expect(set.has(s)).toBe(s >= 500 && s <= 599);
		expect(parseStatusList('4XX').has(404)).toBe(true);
		expect(parseStatusList('1xx').has(100)).toBe(true);
	});

	it('reads ranges like 500-504, inclusive', () => {
		const set = parseStatusList('500-504');
		expect([499, 500, 501, 502, 503, 504, 505].map((s) => set.has(s))).toEqual([false, true, true, true, true, true, false]);
		expect(parseStatusList('503-503').has(503)).toBe(true);
	});

	it('mixes codes, classes and ranges, with commas, spaces or both', () => {
		const set = parseStatusList(' 408,429  5xx,520-529\n  418 ');
		expect([408, 429, 418, 500, 599, 520, 529].every((s) => set.has(s))).toBe(true);
		expect([404, 400, 409, 430, 600, 300].some((s) => set.has(s))).toBe(false);
	});

	it('an empty list retries no status', () => {
		const set = parseStatusList('');
		expect(set.has(503)).toBe(false);
		expect(parseStatusList(' , ,').has(429)).toBe(false);
	});

	it.each(['abc', '600', '99', '1000', '099', '504-500', '450-600', '6xx', '0xx', '5x', '5xxx', '50x', '500-', '-504', '500..504', '5.0', '42'])(
		'rejects %j with a message naming the entry',
		(entry) => {
			expect(() => parseStatusList(`429, ${entry}, 503`)).toThrow(`"${entry}" is not a status code, a class like 5xx, or a range like 500-504`);
		},
	);
});

describe('classifyStatus', () => {
	it('1xx, 2xx and 3xx are not failures', () => {
		for (const status of [100, 101, 103, 200, 201, 204, 206, 299, 300, 301, 302, 304, 307, 308, 399]) {
			expect(classifyStatus(status, 'x', DEFAULT_LIST)).toBeUndefined();
		}
	});

	it('4xx and 5xx are failures that reached the server; transient only when listed', () => {
		const transient: number[] = [];
		for (let status = 400; status <= 599; status++) {
			const failure = classifyStatus(status, undefined, DEFAULT_LIST);
			// a rate limiter (429) and an overload refusal (529) did no work; any other status may have
			expect(failure).toMatchObject({ kind: 'status', status, reachedServer: status === 429 || status === 529 ? 'refused' : 'yes' });
			if (failure!.transient) transient.push(status);
		}
		expect(transient).toEqual([408, 429, 500, 502, 503, 504, 529]);
	});

	it.each<[number, boolean, boolean]>([
		// status, default list, '5xx'
		[400, false, false],
		[401, false, false],
		[403, false, false],
		[404, false, false],
		[408, true, false],
		[409, false, false],
		[422, false, false],
		[429, true, false],
		[500, true, true],
		[501, false, true],
		[502, true, true],
		[503, true, true],
		[504, true, true],
		[505, false, true],
		[520, false, true],
		[599, false, true],
	])('%d: default list transient=%s, 5xx transient=%s', (status, byDefault, by5xx) => {
		expect(classifyStatus(status, undefined, DEFAULT_LIST)?.transient).toBe(byDefault);
		expect(classifyStatus(status, undefined, parseStatusList('5xx'))?.transient).toBe(by5xx);
		expect(classifyStatus(status, undefined, parseStatusList('500-504'))?.transient).toBe(status >= 500 && status <= 504);
	});

	it('builds the message from status and status text', () => {
		expect(classifyStatus(503, 'Service Unavailable', DEFAULT_LIST)).toEqual({
			kind: 'status',
			status: 503,
			statusText: 'Service Unavailable',
			message: '503 Service Unavailable',
			reachedServer: 'yes',
			transient: true,
		});
		expect(classifyStatus(418, '', DEFAULT_LIST)?.message).toBe('418');
		expect(classifyStatus(418, undefined, DEFAULT_LIST)?.message).toBe('418');
	});
});

describe('classifyNetworkError', () => {
	it.each<[string, 'network' | 'timeout', 'no' | 'maybe']>([
		['ECONNRESET', 'network', 'maybe'],
		['EPIPE', 'network', 'maybe'],
		['ECONNREFUSED', 'network', 'no'],
		['EAI_AGAIN', 'network', 'no'],
		['EHOSTUNREACH', 'network', 'no'],
		['ENETUNREACH', 'network', 'no'],
		['EHOSTDOWN', 'network', 'no'],
		['ENETDOWN', 'network', 'no'],
		['ETIMEDOUT', 'timeout', 'maybe'],
		['ESOCKETTIMEDOUT', 'timeout', 'maybe'],
		['ECONNABORTED', 'timeout', 'maybe'],
		['UND_ERR_CONNECT_TIMEOUT', 'timeout', 'no'],
		['UND_ERR_HEADERS_TIMEOUT', 'timeout', 'maybe'],
		['UND_ERR_SOCKET', 'network', 'maybe'],
	])('%s -> %s, reached server: %s, transient', (code, kind, reachedServer) => {
		const message = `connect ${code} 10.0.0.1:443`;
		expect(classifyNetworkError(code, message)).toEqual({ kind, code, message, reachedServer, transient: true });
	});

	it('reads codes case-insensitively', () => {
		expect(classifyNetworkError('econnrefused', 'x')).toMatchObject({ code: 'ECONNREFUSED', reachedServer: 'no' });
	});

	it("'socket hang up' without a code is a broken connection that may have reached the server", () => {
		expect(classifyNetworkError(undefined, 'socket hang up')).toEqual({ kind: 'network', code: 'ECONNRESET', message: 'socket hang up', reachedServer: 'maybe', transient: true });
		expect(classifyNetworkError('', 'Error: Socket Hang Up')).toMatchObject({ reachedServer: 'maybe', transient: true });
	});

	it('a reset during the TLS handshake never reached the server', () => {
		const message = 'Client network socket disconnected before secure TLS connection was established';
		expect(classifyNetworkError('ECONNRESET', message)).toEqual({ kind: 'network', code: 'ECONNRESET', message, reachedServer: 'no', transient: true });
		// the same message with another code is not promoted to "never reached"
		expect(classifyNetworkError('ETIMEDOUT', message)).toMatchObject({ kind: 'timeout', reachedServer: 'maybe' });
	});

	it.each([
		['ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.invalid'],
		['CERT_HAS_EXPIRED', 'certificate has expired'],
		['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'],
		['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'],
		['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'],
		['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"],
		['ERR_INVALID_URL', 'Invalid URL'],
		['ERR_BAD_REQUEST', 'Request failed with status code 400'],
		[undefined, 'something else entirely'],
	])('%s is not transient: undefined', (code, message) => {
		expect(classifyNetworkError(code, message)).toBeUndefined();
	});
});
