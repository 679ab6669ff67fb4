import {
	type ServerDelayOptions,
	normalizeHeaders,
	parseDuration,
	parseHttpDate,
	parseRateLimitHeader,
	parseResetValue,
	parseRetryAfter,
	serverRequestedDelay,
	type HeaderBag,
} from '../../nodes/shared/core/retry-after';

/** Thu, 15 Jan 2026 12:00:00 GMT */
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 3600 * SECOND;

function expectFiniteLarge(ms: number | undefined): void {
	expect(ms).toBeDefined();
	expect(Number.isFinite(ms)).toBe(true);
	expect(ms!).toBeGreaterThan(1e12);
	expect(ms!).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
}

describe('parseRetryAfter', () => {
	it.each<[string, number | undefined]>([
		['120', 120 * SECOND],
		['0', 0],
		['1.5', 1500],
		[' 5 ', 5 * SECOND],
		['\t7\r\n', 7 * SECOND],
		['007', 7 * SECOND],
		['-1', undefined],
		['abc', undefined],
		['', undefined],
		['   ', undefined],
		['+5', undefined],
		['5s', undefined],
		['1e3', undefined],
		['0x10', undefined],
		['5.', undefined],
		['.5', undefined],
		['1.5.5', undefined],
		['NaN', undefined],
		['Infinity', undefined],
		['5, 10', undefined],
		// IMF-fixdate
		['Thu, 15 Jan 2026 12:02:00 GMT', 2 * MINUTE],
		['Fri, 06 Feb 2026 12:00:00 GMT', 22 * DAY],
		['thu, 15 jan 2026 12:02:00 GMT', 2 * MINUTE],
		// RFC 850, two-digit year
		['Thursday, 15-Jan-26 12:02:00 GMT', 2 * MINUTE],
		['Wednesday, 15-Jan-26 12:00:10 GMT', 10 * SECOND],
		// asctime, with and without the space-padded day
		['Thu Jan 15 12:02:00 2026', 2 * MINUTE],
		['Fri Feb  6 12:00:00 2026', 22 * DAY],
		// past dates: retry now
		['Sun, 06 Nov 1994 08:49:37 GMT', 0],
		['Sunday, 06-Nov-94 08:49:37 GMT', 0],
		['Sun Nov  6 08:49:37 1994', 0],
		['Thu, 15 Jan 2026 11:59:59 GMT', 0],
		// the very instant
		['Thu, 15 Jan 2026 12:00:00 GMT', 0],
		// garbage dates
		['Sun, 32 Nov 2026 08:49:37 GMT', undefined],
		['Sun, 00 Nov 2026 08:49:37 GMT', undefined],
		['Sun, 06 Foo 2026 08:49:37 GMT', undefined],
		['Sun, 06 Nov 2026 24:00:00 GMT', undefined],
		['Sun, 06 Nov 2026 08:60:00 GMT', undefined],
		['Sun, 06 Nov 2026 08:49:37', undefined],
		['Sun, 06 Nov 2026 08:49:37 PST', undefined],
		['Sun, 6 Nov 2026 08:49:37 GMT', undefined],
		['Sunday, 32-Nov-26 08:49:37 GMT', undefined],
		['Sun Nov 32 08:49:37 2026', undefined],
		['2026-01-15T12:02:00Z', undefined],
	])('%j -> %s', (value, expected) => {
		expect(parseRetryAfter(value, NOW)).toBe(expected);
	});

	it.each(['99999999999999999999', '9'.repeat(400), '99999999999999999999.5'])('huge value %s -> finite large, not NaN, not negative', (value) => {
		expectFiniteLarge(parseRetryAfter(value, NOW));
	});

	it('rounds sub-millisecond fractions up, never down to an earlier retry', () => {
		expect(parseRetryAfter('0.0001', NOW)).toBe(1);
	});
});

describe('parseHttpDate', () => {
	it('parses the three RFC 9110 formats to the same instant', () => {
		const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
		expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(expected);
		expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(expected);
		expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toBe(expected);
	});

	it('asctime with a two-digit day', () => {
		expect(parseHttpDate('Wed Nov 16 08:49:37 1994', NOW)).toBe(Date.UTC(1994, 10, 16, 8, 49, 37));
	});

	describe('RFC 850 two-digit years: more than 50 years ahead means the previous century', () => {
		it.each<[string, number]>([
			['26', 2026],
			['27', 2027],
			['75', 2075],
			['76', 2076],
			['77', 1977],
			['94', 1994],
			['99', 1999],
			['00', 2000],
			['25', 2025],
		])('year %s seen in 2026 -> %d', (yy, year) => {
			expect(parseHttpDate(`Monday, 01-Jun-${yy} 00:00:00 GMT`, NOW)).toBe(Date.UTC(year, 5, 1));
		});

		it('the window moves with the clock', () => {
			const in2080 = Date.UTC(2080, 0, 1);
			expect(parseHttpDate('Monday, 01-Jun-30 00:00:00 GMT', in2080)).toBe(Date.UTC(2030, 5, 1));
			expect(parseHttpDate('Monday, 01-Jun-99 00:00:00 GMT', in2080)).toBe(Date.UTC(2099, 5, 1));
			// seen from 2044: 2093 is 49 years ahead, 2095 would be 51
			expect(parseHttpDate('Monday, 01-Jun-93 00:00:00 GMT', Date.UTC(2044, 0, 1))).toBe(Date.UTC(2093, 5, 1));
			expect(parseHttpDate('Monday, 01-Jun-95 00:00:00 GMT', Date.UTC(2044, 0, 1))).toBe(Date.UTC(1995, 5, 1));
		});
	});

	it('rejects a weekday name of the wrong length in RFC 850', () => {
		expect(parseHttpDate('Sun, 06-Nov-94 08:49:37 GMT', NOW)).toBeUndefined();
	});
});

describe('parseDuration', () => {
	it.each<[string, number | undefined]>([
		['6m0s', 6 * MINUTE],
		['20ms', 20],
		['1h2m3.5s', 3_723_500],
		['0.5s', 500],
		['1s', 1000],
		['59.999s', 59_999],
		['2h', 7_200_000],
		['0s', 0],
		['1.2ms', 2],
		['150us', 1],
		['150µs', 1],
		['100ns', 1],
		[' 6m0s ', 6 * MINUTE],
		['30', undefined],
		['', undefined],
		['5 m', undefined],
		['m5', undefined],
		['-1s', undefined],
		['1d', undefined],
		['1m-5s', undefined],
		['abc', undefined],
	])('%j -> %s', (value, expected) => {
		expect(parseDuration(value)).toBe(expected);
	});
});

describe('parseResetValue', () => {
	const epochSeconds = (ms: number) => String(ms / 1000);
	it.each<[string, string, number | undefined]>([
		['delta seconds', '30', 30 * SECOND],
		['delta seconds, decimal', '1.5', 1500],
		['zero', '0', 0],
		['largest delta still read as seconds', '999999999', 999_999_999 * SECOND],
		['epoch seconds', epochSeconds(NOW + 30 * SECOND), 30 * SECOND],
		['epoch seconds with a fraction', String((NOW + 1500) / 1000), 1500],
		['epoch seconds in the past', epochSeconds(NOW - 30 * SECOND), 0],
		['1e9 is an epoch (2001), so in the past', '1000000000', 0],
		['epoch milliseconds', String(NOW + 30 * SECOND), 30 * SECOND],
		['epoch milliseconds in the past', String(NOW - 1), 0],
		['duration', '6m0s', 6 * MINUTE],
		['duration ms', '20ms', 20],
		['RFC 3339 Z', '2026-01-15T12:00:30Z', 30 * SECOND],
		['RFC 3339 with fraction', '2026-01-15T12:00:30.500Z', 30_500],
		['RFC 3339 with offset', '2026-01-15T13:00:30+01:00', 30 * SECOND],
		['RFC 3339 without seconds', '2026-01-15T12:01Z', MINUTE],
		['RFC 3339 in the past', '2025-12-31T00:00:00Z', 0],
		['RFC 3339 impossible', '2026-13-45T99:99:99Z', undefined],
		['RFC 3339 without zone', '2026-01-15T12:00:30', undefined],
		['HTTP-date', 'Thu, 15 Jan 2026 12:02:00 GMT', 2 * MINUTE],
		['garbage', 'soon', undefined],
		['empty', '', undefined],
		['negative', '-30', undefined],
	])('%s: %j', (_label, value, expected) => {
		expect(parseResetValue(value, NOW)).toBe(expected);
	});

	it('huge values are finite and large, not NaN or negative', () => {
		expectFiniteLarge(parseResetValue('99999999999999999999', NOW));
		expectFiniteLarge(parseResetValue('9'.repeat(400), NOW));
		expectFiniteLarge(parseResetValue('99999999999h', NOW));
	});
});

describe('parseRateLimitHeader', () => {
	it.each<[string, number | undefined]>([
		['"default";r=0;t=30', 30 * SECOND],
		['"default";r=5;t=30', 30 * SECOND],
		['"default";q=100;w=60;r=0;t=12', 12 * SECOND],
		['"default"; r=0; t=30', 30 * SECOND],
		['"default";r=0;t=1.5', 1500],
		// several policies: the longest wait among the exhausted ones
		['"burst";r=0;t=5, "daily";r=100;t=3600', 5 * SECOND],
		['"burst";r=1;t=5, "daily";r=0;t=3600', 3600 * SECOND],
		['"a";r=0;t=5, "b";r=0;t=20', 20 * SECOND],
		// none exhausted: the longest of all
		['"a";r=3;t=5, "b";r=9;t=20', 20 * SECOND],
		// earlier drafts
		['limit=10, remaining=0, reset=5', 5 * SECOND],
		['limit=10, remaining=3, reset=5', undefined],
		['limit=10, reset=5', 5 * SECOND],
		['LIMIT=10, REMAINING=0, RESET=7', 7 * SECOND],
		// nothing to wait on
		['"default";q=100;w=60', undefined],
		['', undefined],
		['garbage', undefined],
		// a number must end where the field ends: no `t=1` read out of these
		['"default";r=0;t=1e400', undefined],
		['"default";r=0;t=5x', undefined],
		['"default";r=0;t=-3', undefined],
		['limit=10, remaining=0, reset=2e9', undefined],
		['"default";r=0;t=4 ', 4 * SECOND],
	])('%j -> %s', (value, expected) => {
		expect(parseRateLimitHeader(value)).toBe(expected);
	});
});

describe('normalizeHeaders', () => {
	it('lower-cases names, keeps the first of array values, drops null and undefined, stringifies numbers', () => {
		expect(normalizeHeaders({ 'Retry-After': ['5', '10'], 'X-Thing': 3, Empty: [], Null: null, Undef: undefined })).toEqual({
			'retry-after': '5',
			'x-thing': '3',
		});
		expect(normalizeHeaders(undefined)).toEqual({});
	});

	it('lower-cases the headers of one answer once: every reader of the same header object gets the same copy', () => {
		const headers = { 'RateLimit-Remaining': '3', 'RateLimit-Reset': '9' };
		const first = normalizeHeaders(headers);
		expect(normalizeHeaders(headers)).toBe(first);
		expect(normalizeHeaders({ ...headers })).not.toBe(first);
		expect(normalizeHeaders({ ...headers })).toEqual(first);
	});
});

describe('serverRequestedDelay', () => {
	const on429: ServerDelayOptions = { readRateLimitHeaders: true, status: 429 };
	const delay = (headers: HeaderBag | undefined, options: ServerDelayOptions = on429) => serverRequestedDelay(headers, NOW, options);

	it('returns undefined without headers', () => {
		expect(delay(undefined)).toBeUndefined();
		expect(delay({})).toBeUndefined();
	});

	it.each(['Retry-After', 'retry-after', 'RETRY-AFTER', 'rEtRy-AfTeR'])('reads %s case-insensitively', (name) => {
		expect(delay({ [name]: '120' })).toEqual({ delayMs: 120 * SECOND, header: 'retry-after', kind: 'retry-after' });
	});

	it('reads array values (the longest: never earlier than any of them asks) and numeric values', () => {
		expect(delay({ 'retry-after': ['5', '100'] })?.delayMs).toBe(100 * SECOND);
		expect(delay({ 'retry-after': ['abc', '5'] })?.delayMs).toBe(5 * SECOND);
		expect(delay({ 'retry-after': '1, 5' })?.delayMs).toBe(5 * SECOND);
		expect(delay({ 'Retry-After': '3', 'retry-after': '2' })?.delayMs).toBe(3 * SECOND);
		expect(delay({ 'retry-after-ms': ['1500', '200'] })?.delayMs).toBe(1500);
		expect(delay({ 'retry-after': 7 })?.delayMs).toBe(7 * SECOND);
		expect(delay({ 'retry-after': [] })).toBeUndefined();
	});

	it('reads Retry-After whatever the status and whether or not rate-limit headers are read', () => {
		for (const options of [
			{ readRateLimitHeaders: false, status: 503 },
			{ readRateLimitHeaders: true, status: 503 },
			{ readRateLimitHeaders: false },
		]) {
			expect(delay({ 'Retry-After': 'Thu, 15 Jan 2026 12:02:00 GMT' }, options)).toEqual({ delayMs: 2 * MINUTE, header: 'retry-after', kind: 'retry-after' });
		}
	});

	it('reads retry-after-ms, as milliseconds', () => {
		expect(delay({ 'Retry-After-Ms': '1500' })).toEqual({ delayMs: 1500, header: 'retry-after-ms', kind: 'retry-after' });
		expect(delay({ 'retry-after-ms': ' 20.5 ' })?.delayMs).toBe(21);
		expect(delay({ 'retry-after-ms': 'soon' })).toBeUndefined();
		expect(delay({ 'retry-after-ms': '-5' })).toBeUndefined();
	});

	it('retry-after-ms (more precise) wins over Retry-After, and both over every reset header', () => {
		const headers = {
			'Retry-After': '2',
			'retry-after-ms': '900',
			RateLimit: '"default";r=0;t=50',
			'RateLimit-Reset': '40',
			'X-RateLimit-Reset': '30',
			'X-RateLimit-Remaining': '0',
			'x-ratelimit-reset-requests': '6m0s',
			'x-ratelimit-remaining-requests': '0',
		};
		expect(delay(headers)).toEqual({ delayMs: 900, header: 'retry-after-ms', kind: 'retry-after' });
		const { 'retry-after-ms': _ms, ...withoutMs } = headers;
		expect(delay(withoutMs)).toEqual({ delayMs: 2 * SECOND, header: 'retry-after', kind: 'retry-after' });
	});

	it('falls through an unparseable Retry-After to the next source', () => {
		expect(delay({ 'Retry-After': 'later', 'X-RateLimit-Reset': '30' })).toEqual({ delayMs: 30 * SECOND, header: 'x-ratelimit-reset', kind: 'rate-limit-reset' });
		expect(delay({ 'Retry-After': '-1', 'retry-after-ms': '250' })?.delayMs).toBe(250);
	});

	it('huge Retry-After is finite and large', () => {
		expectFiniteLarge(delay({ 'Retry-After': '99999999999999999999' })?.delayMs);
		expectFiniteLarge(delay({ 'X-RateLimit-Reset': '99999999999999999999' })?.delayMs);
	});

	describe('reset headers on a 429', () => {
		it.each<[string, HeaderBag, number, string]>([
			['IETF RateLimit draft 8', { RateLimit: '"default";r=0;t=30' }, 30 * SECOND, 'ratelimit'],
			['IETF RateLimit, several policies', { RateLimit: '"burst";r=0;t=5, "day";r=10;t=86400' }, 5 * SECOND, 'ratelimit'],
			['IETF RateLimit, earlier draft', { RateLimit: 'limit=10, remaining=0, reset=5' }, 5 * SECOND, 'ratelimit'],
			['RateLimit-Reset', { 'RateLimit-Reset': '30' }, 30 * SECOND, 'ratelimit-reset'],
			['X-RateLimit-Reset as delta seconds', { 'X-RateLimit-Reset': '30' }, 30 * SECOND, 'x-ratelimit-reset'],
			['X-RateLimit-Reset as epoch seconds', { 'X-RateLimit-Reset': String(NOW / 1000 + 45) }, 45 * SECOND, 'x-ratelimit-reset'],
			['X-RateLimit-Reset as epoch milliseconds', { 'X-RateLimit-Reset': String(NOW + 45_000) }, 45 * SECOND, 'x-ratelimit-reset'],
			['X-RateLimit-Reset epoch in the past', { 'X-RateLimit-Reset': String(NOW / 1000 - 45) }, 0, 'x-ratelimit-reset'],
			['X-Rate-Limit-Reset', { 'X-Rate-Limit-Reset': '12' }, 12 * SECOND, 'x-rate-limit-reset'],
			['array value', { 'X-RateLimit-Reset': ['8', '99'] }, 8 * SECOND, 'x-ratelimit-reset'],
		])('%s', (_label, headers, ms, header) => {
			expect(delay(headers)).toEqual({ delayMs: ms, header, kind: 'rate-limit-reset' });
		});

		it('prefers RateLimit, then RateLimit-Reset, then X-RateLimit-Reset', () => {
			expect(delay({ 'X-RateLimit-Reset': '30', 'RateLimit-Reset': '40', RateLimit: '"d";r=0;t=50' })?.header).toBe('ratelimit');
			expect(delay({ 'X-RateLimit-Reset': '30', 'RateLimit-Reset': '40' })?.header).toBe('ratelimit-reset');
			expect(delay({ 'X-RateLimit-Reset': '30', 'x-ratelimit-reset-requests': '6m0s' })?.header).toBe('x-ratelimit-reset');
		});

		it('skips an unparseable reset header for the next one', () => {
			expect(delay({ RateLimit: 'nonsense', 'RateLimit-Reset': 'soon', 'X-RateLimit-Reset': '9' })).toEqual({ delayMs: 9 * SECOND, header: 'x-ratelimit-reset', kind: 'rate-limit-reset' });
		});
	});

	describe('OpenAI-style suffixed headers', () => {
		const openai = (remainingRequests: string, remainingTokens: string): HeaderBag => ({
			'x-ratelimit-limit-requests': '60',
			'x-ratelimit-remaining-requests': remainingRequests,
			'x-ratelimit-reset-requests': '6m0s',
			'x-ratelimit-limit-tokens': '150000',
			'x-ratelimit-remaining-tokens': remainingTokens,
			'x-ratelimit-reset-tokens': '20ms',
		});

		it('waits for the exhausted counter: requests', () => {
			expect(delay(openai('0', '149984'))).toEqual({ delayMs: 6 * MINUTE, header: 'x-ratelimit-reset-requests', kind: 'rate-limit-reset' });
		});

		it('waits for the exhausted counter: tokens', () => {
			expect(delay(openai('59', '0'))).toEqual({ delayMs: 20, header: 'x-ratelimit-reset-tokens', kind: 'rate-limit-reset' });
		});

		it('on a 429 with no counter at 0, waits for the one with the smallest share of its limit left: the one the request did not fit', () => {
			// 10 tokens of 150,000 left: a request for more was refused for tokens, not for its 3 requests of 60
			expect(delay(openai('3', '10'))).toEqual({ delayMs: 20, header: 'x-ratelimit-reset-tokens', kind: 'rate-limit-reset' });
			expect(delay(openai('1', '120000'))?.header).toBe('x-ratelimit-reset-requests');
		});

		it('without limits to compare, takes the longest', () => {
			const { 'x-ratelimit-limit-requests': _r, 'x-ratelimit-limit-tokens': _t, ...noLimits } = openai('3', '10') as Record<string, string>;
			expect(delay(noLimits)?.header).toBe('x-ratelimit-reset-requests');
		});

		it('is case-insensitive', () => {
			expect(delay({ 'X-RateLimit-Remaining-Tokens': '0', 'X-RateLimit-Reset-Tokens': '1s' })).toEqual({ delayMs: SECOND, header: 'x-ratelimit-reset-tokens', kind: 'rate-limit-reset' });
		});
	});

	describe('Anthropic headers', () => {
		const anthropic: HeaderBag = {
			'anthropic-ratelimit-requests-limit': '50',
			'anthropic-ratelimit-requests-remaining': '0',
			'anthropic-ratelimit-requests-reset': '2026-01-15T12:00:45Z',
			'anthropic-ratelimit-tokens-limit': '100000',
			'anthropic-ratelimit-tokens-remaining': '1000',
			'anthropic-ratelimit-tokens-reset': '2026-01-15T12:05:00Z',
			'anthropic-ratelimit-input-tokens-remaining': '500',
			'anthropic-ratelimit-input-tokens-reset': '2026-01-15T12:03:00Z',
		};

		it('reads the RFC 3339 reset of the exhausted counter', () => {
			expect(delay(anthropic)).toEqual({ delayMs: 45 * SECOND, header: 'anthropic-ratelimit-requests-reset', kind: 'rate-limit-reset' });
		});

		it('reads multi-word counters such as input-tokens', () => {
			expect(delay({ ...anthropic, 'anthropic-ratelimit-requests-remaining': '5', 'anthropic-ratelimit-input-tokens-remaining': '0' })).toEqual({
				delayMs: 3 * MINUTE,
				header: 'anthropic-ratelimit-input-tokens-reset',
				kind: 'rate-limit-reset',
			});
		});

		it('their retry-after wins', () => {
			expect(delay({ ...anthropic, 'retry-after': '12' })).toEqual({ delayMs: 12 * SECOND, header: 'retry-after', kind: 'retry-after' });
		});
	});

	describe('reset headers outside a 429', () => {
		it.each([200, 500, 503, undefined])('are ignored on status %s while quota remains', (status) => {
			const options = { readRateLimitHeaders: true, status };
			expect(delay({ 'X-RateLimit-Reset': '30' }, options)).toBeUndefined();
			expect(delay({ 'X-RateLimit-Reset': '30', 'X-RateLimit-Remaining': '7' }, options)).toBeUndefined();
			expect(delay({ 'RateLimit-Reset': '30', 'RateLimit-Remaining': '1' }, options)).toBeUndefined();
			expect(delay({ RateLimit: '"default";r=4;t=30' }, options)).toBeUndefined();
			expect(delay({ 'x-ratelimit-reset-requests': '6m0s', 'x-ratelimit-remaining-requests': '10' }, options)).toBeUndefined();
		});

		it.each([200, 503])('count on status %s once a remaining counter is 0', (status) => {
			const options = { readRateLimitHeaders: true, status };
			expect(delay({ 'X-RateLimit-Reset': '30', 'X-RateLimit-Remaining': '0' }, options)?.delayMs).toBe(30 * SECOND);
			expect(delay({ 'RateLimit-Reset': '30', 'RateLimit-Remaining': ' 0 ' }, options)?.delayMs).toBe(30 * SECOND);
			expect(delay({ 'x-ratelimit-reset-requests': '6m0s', 'x-ratelimit-remaining-requests': '0' }, options)?.delayMs).toBe(6 * MINUTE);
			expect(delay({ 'anthropic-ratelimit-requests-reset': '2026-01-15T12:00:45Z', 'anthropic-ratelimit-requests-remaining': '0' }, options)?.delayMs).toBe(45 * SECOND);
		});

		it.each([200, 503])('count on status %s when the RateLimit header itself says the quota is exhausted', (status) => {
			const options = { readRateLimitHeaders: true, status };
			expect(delay({ RateLimit: '"default";r=0;t=30' }, options)?.delayMs).toBe(30 * SECOND);
			expect(delay({ RateLimit: '"burst";r=0;t=5, "day";r=10;t=86400' }, options)?.delayMs).toBe(5 * SECOND);
			expect(delay({ RateLimit: 'limit=10, remaining=0, reset=5' }, options)?.delayMs).toBe(5 * SECOND);
			// r=05 or remaining=10 are not zero
			expect(delay({ RateLimit: '"default";r=05;t=30' }, options)).toBeUndefined();
			expect(delay({ RateLimit: 'limit=10, remaining=10, reset=5' }, options)).toBeUndefined();
		});
	});

	it('readRateLimitHeaders=false ignores every reset header, even on a 429 with a counter at 0', () => {
		const options = { readRateLimitHeaders: false, status: 429 };
		expect(delay({ RateLimit: '"default";r=0;t=30' }, options)).toBeUndefined();
		expect(delay({ 'RateLimit-Reset': '30', 'RateLimit-Remaining': '0' }, options)).toBeUndefined();
		expect(delay({ 'X-RateLimit-Reset': '30', 'X-RateLimit-Remaining': '0' }, options)).toBeUndefined();
		expect(delay({ 'x-ratelimit-reset-requests': '6m0s', 'x-ratelimit-remaining-requests': '0' }, options)).toBeUndefined();
		expect(delay({ 'anthropic-ratelimit-requests-reset': '2026-01-15T12:00:45Z', 'anthropic-ratelimit-requests-remaining': '0' }, options)).toBeUndefined();
	});
});
