/**
 * Property-based tests of everything that turns input into a wait: the Retry-After and rate-limit
 * header parsers (nodes/shared/core/retry-after.ts), the backoff math (backoff.ts) and the plan that
 * combines them (delay-plan.ts). Random strings, numbers, dates and header objects with odd
 * casing and arrays: never a throw, never NaN, a negative or an infinite wait, never above the
 * configured caps, never earlier than a valid value asks.
 *
 * Fixed seed (FC_SEED picks another). The table "Property-based tests" of docs/testing.md is built from PROPERTIES.
 */
import { ok } from 'node:assert/strict';
import fc from 'fast-check';
import { computeBackoffDelay, exponentialCeiling, JITTER_STRATEGIES, type BackoffParams } from '../../nodes/shared/core/backoff';
import { planDelay } from '../../nodes/shared/core/delay-plan';
import { longestRetryAfter, parseDuration, parseHttpDate, parseRateLimitHeader, parseResetValue, parseRetryAfter, serverRequestedDelay, type HeaderBag, type ServerDelay } from '../../nodes/shared/core/retry-after';
import { expectDocSection, markdownTable } from '../support/doc-section';

const SEED = Number(process.env.FC_SEED ?? 20261129);

/** A wait the nodes may sleep: a whole, finite, non-negative number of ms. (node:assert: jest's expect is too slow for 70,000 runs.) */
function expectSaneMs(ms: number | undefined): void {
	if (ms === undefined) return;
	ok(Number.isSafeInteger(ms) && ms >= 0, `not a sane wait: ${ms}`);
}

// ---- generators --------------------------------------------------------------------------

/** Any instant a Date can hold. */
const instant = fc.integer({ min: -8.64e15, max: 8.64e15 });
/** "Now": 1970 to 2200. */
const now = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) });
const anyNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 1e309, Number.MAX_VALUE, Number.MIN_VALUE));

const httpDate = instant.map((t) => new Date(t).toUTCString());
const rfc850 = fc.tuple(fc.constantFrom('Sunday', 'Monday', 'Friday'), fc.integer({ min: 0, max: 40 }), fc.constantFrom('Jan', 'Feb', 'Nov', 'Xyz'), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })).map(
	([day, d, mon, yy, h]) => `${day}, ${String(d).padStart(2, '0')}-${mon}-${String(yy).padStart(2, '0')} ${String(h).padStart(2, '0')}:00:00 GMT`,
);
const asctime = fc.tuple(fc.constantFrom('Jan', 'Feb', 'Dec'), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 99999 })).map(([mon, d, y]) => `Sun ${mon} ${String(d).padStart(2, ' ')} 08:49:37 ${y}`);
const numeric = fc.oneof(
	fc.nat().map(String),
	anyNumber.map(String),
	fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}.${b}`),
	fc.stringMatching(/^-?\d{1,400}(\.\d{1,20})?$/),
	fc.integer({ min: 1e9, max: 1e13 }).map(String),
);
const duration = fc.stringMatching(/^(\d{1,6}(\.\d{1,3})?(h|m|s|ms|us|µs|ns)){1,4}$/);
const rateLimitField = fc.tuple(fc.nat(5), fc.oneof(numeric, fc.string())).map(([r, t]) => `"default";r=${r};t=${t}`);
const legacyRateLimit = fc.tuple(fc.nat(10), fc.oneof(numeric, fc.string())).map(([remaining, reset]) => `limit=10, remaining=${remaining}, reset=${reset}`);
const isoDate = instant.map((t) => new Date(t).toISOString());

/** Text a server might send as a header value, sane or not. */
const headerText = fc.oneof(
	{ weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
	{ weight: 3, arbitrary: numeric },
	{ weight: 2, arbitrary: httpDate },
	{ weight: 1, arbitrary: rfc850 },
	{ weight: 1, arbitrary: asctime },
	{ weight: 2, arbitrary: duration },
	{ weight: 2, arbitrary: rateLimitField },
	{ weight: 1, arbitrary: legacyRateLimit },
	{ weight: 1, arbitrary: isoDate },
	{ weight: 1, arbitrary: fc.array(numeric, { minLength: 2, maxLength: 4 }).map((values) => values.join(', ')) },
);

const KNOWN_HEADERS = [
	'retry-after',
	'retry-after-ms',
	'ratelimit',
	'ratelimit-reset',
	'ratelimit-remaining',
	'x-ratelimit-reset',
	'x-rate-limit-reset',
	'x-ratelimit-remaining',
	'x-ratelimit-reset-requests',
	'x-ratelimit-remaining-requests',
	'x-ratelimit-reset-tokens',
	'x-ratelimit-remaining-tokens',
	'anthropic-ratelimit-requests-reset',
	'anthropic-ratelimit-requests-remaining',
	'content-type',
];
/** A known header name in a random mix of upper and lower case, or any name at all. */
const headerName = fc.oneof(
	{ weight: 4, arbitrary: fc.tuple(fc.constantFrom(...KNOWN_HEADERS), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 })).map(([name, upper]) => [...name].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join('')) },
	{ weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);
const headerValue = fc.oneof(
	{ weight: 5, arbitrary: headerText },
	{ weight: 2, arbitrary: fc.array(headerText, { maxLength: 3 }) },
	{ weight: 1, arbitrary: anyNumber },
	{ weight: 1, arbitrary: fc.constantFrom(null, undefined, true, '', '0') },
);
const headerBag: fc.Arbitrary<HeaderBag> = fc.dictionary(headerName, headerValue, { maxKeys: 6 });

/** A random source that is not always well behaved: values outside [0, 1), NaN, Infinity. */
const randomSource = fc.oneof(
	{ weight: 4, arbitrary: fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 4 }) },
	{ weight: 1, arbitrary: fc.array(anyNumber, { minLength: 1, maxLength: 4 }) },
).map((values) => {
	let i = 0;
	return () => values[i++ % values.length];
});

/** Parameters as validated by the nodes: 0 to 24 h, base at most the cap. */
const saneBackoff: fc.Arbitrary<BackoffParams> = fc
	.tuple(fc.constantFrom(...JITTER_STRATEGIES), fc.integer({ min: 0, max: 24 * 3600_000 }), fc.integer({ min: 0, max: 24 * 3600_000 }))
	.map(([strategy, a, b]) => ({ strategy, baseDelayMs: Math.min(a, b), maxDelayMs: Math.max(a, b) }));
/** Anything at all, NaN and infinities included. */
const wildBackoff: fc.Arbitrary<BackoffParams> = fc.record({ strategy: fc.constantFrom(...JITTER_STRATEGIES), baseDelayMs: anyNumber, maxDelayMs: anyNumber });
const retryNumber = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 200 }) }, { weight: 1, arbitrary: anyNumber });

const serverDelay: fc.Arbitrary<ServerDelay> = fc.record({
	delayMs: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 10 * 24 * 3600_000 }) }, { weight: 1, arbitrary: anyNumber }),
	header: fc.constantFrom('retry-after', 'x-ratelimit-reset'),
	kind: fc.constantFrom('retry-after' as const, 'rate-limit-reset' as const),
});

// ---- the properties ------------------------------------------------------------------------

interface Property {
	name: string;
	inputs: string;
	runs: number;
	check: () => void;
}

const run = <T>(arbitrary: fc.Arbitrary<T>, runs: number, predicate: (value: T) => void) => fc.assert(fc.property(arbitrary, predicate), { seed: SEED, numRuns: runs });

const PROPERTIES: Property[] = [
	{
		name: 'Retry-After parses to a whole, finite, non-negative wait, or to nothing; never throws',
		inputs: 'any text, numbers (NaN, 1e309, 400 digits, decimals), HTTP-dates of any year, RFC 850, asctime, durations; any "now"',
		runs: 10_000,
		check: () =>
			run(fc.tuple(headerText, now), 10_000, ([value, nowMs]) => {
				expectSaneMs(parseRetryAfter(value, nowMs));
				expectSaneMs(longestRetryAfter([value, value.toUpperCase()], nowMs));
			}),
	},
	{
		name: 'Rate-limit values (reset delta or epoch, durations, RateLimit fields) parse the same way',
		inputs: 'the same text, epoch seconds and milliseconds, ISO dates, `t=` and `reset=` fields',
		runs: 10_000,
		check: () =>
			run(fc.tuple(headerText, now), 10_000, ([value, nowMs]) => {
				expectSaneMs(parseResetValue(value, nowMs));
				expectSaneMs(parseDuration(value));
				expectSaneMs(parseRateLimitHeader(value));
			}),
	},
	{
		name: 'A whole header object gives a sane wait from a known header, or none',
		inputs: 'header objects: known names in random case, repeated as arrays, numbers, null, any status, rate-limit headers on or off',
		runs: 10_000,
		check: () =>
			run(fc.tuple(headerBag, now, fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }), fc.boolean()), 10_000, ([headers, nowMs, status, readRateLimitHeaders]) => {
				const found = serverRequestedDelay(headers, nowMs, { readRateLimitHeaders, ...(status !== undefined ? { status } : {}) });
				if (found === undefined) return;
				expectSaneMs(found.delayMs);
				ok(found.header === found.header.toLowerCase(), found.header);
				ok(['retry-after', 'rate-limit-reset'].includes(found.kind), found.kind);
			}),
	},
	{
		name: 'A valid Retry-After is read exactly, whatever the case of its name; several: the longest',
		inputs: 'delay-seconds 0 to 10^7 (decimals too) and IMF-fixdates of years 1000 to 9999, under random casing, one to three values',
		runs: 5_000,
		check: () =>
			run(
				fc.tuple(fc.array(fc.tuple(fc.integer({ min: 0, max: 1e7 }), fc.option(fc.nat(999))).map(([whole, decimals]) => (decimals === null ? String(whole) : `${whole}.${decimals}`)), { minLength: 1, maxLength: 3 }), headerName, now, fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) })),
				5_000,
				([seconds, name, nowMs, at]) => {
					const values = seconds;
					const asked = Math.max(...values.map((v) => Math.ceil(parseFloat(v) * 1000)));
					const lower = name.toLowerCase();
					if (lower === 'retry-after') ok(serverRequestedDelay({ [name]: values }, nowMs, { readRateLimitHeaders: false })?.delayMs === asked, `${name}: ${values.join(', ')}`);
					const date = new Date(at).toUTCString();
					ok(parseHttpDate(date, nowMs) === Math.floor(at / 1000) * 1000, date);
					ok(parseRetryAfter(date, nowMs) === Math.max(0, Math.floor(at / 1000) * 1000 - nowMs), date);
				},
			),
	},
	{
		name: 'Backoff with validated parameters stays within [0, Max Delay] and under the exponential ceiling',
		inputs: 'every jitter strategy, base and cap 0 to 24 h (base at most cap), retries 1 to 200 and wild, previous delays, odd random sources',
		runs: 10_000,
		check: () =>
			run(fc.tuple(saneBackoff, retryNumber, fc.option(anyNumber, { nil: undefined }), randomSource), 10_000, ([params, retry, previous, random]) => {
				const delay = computeBackoffDelay(params, retry, random, previous);
				expectSaneMs(delay);
				ok(delay <= params.maxDelayMs, `${delay} > cap ${params.maxDelayMs}`);
				if (params.strategy !== 'decorrelated' && Number.isFinite(retry)) ok(delay <= Math.round(exponentialCeiling(retry, params.baseDelayMs, params.maxDelayMs)), `${delay} over the ceiling`);
			}),
	},
	{
		name: 'Backoff with any numbers at all (NaN, negative, infinite) still gives a sane wait, never above a finite cap',
		inputs: 'base, cap, retry number and previous delay from all doubles, NaN and infinities included',
		runs: 10_000,
		check: () =>
			run(fc.tuple(wildBackoff, retryNumber, fc.option(anyNumber, { nil: undefined }), randomSource), 10_000, ([params, retry, previous, random]) => {
				const delay = computeBackoffDelay(params, retry, random, previous);
				expectSaneMs(delay);
				if (Number.isFinite(params.maxDelayMs)) ok(delay <= Math.max(0, params.maxDelayMs), `${delay} > cap ${params.maxDelayMs}`);
			}),
	},
	{
		name: 'The delay plan: a wait is sane, never earlier than the server asked, under both caps and before the deadline',
		inputs: 'validated backoff, requested waits (sane and wild), Max Server-Requested Delay 0 to 24 h, time left from past (negative, NaN) to none (Infinity)',
		runs: 10_000,
		check: () =>
			run(
				fc.tuple(
					saneBackoff,
					retryNumber,
					fc.option(serverDelay, { nil: undefined }),
					fc.integer({ min: 0, max: 24 * 3600_000 }),
					fc.oneof(fc.integer({ min: -1e7, max: 1e9 }), fc.constantFrom(Infinity, -Infinity, NaN, 0, 1)),
					randomSource,
				),
				10_000,
				([backoff, retry, requested, maxServerDelayMs, remainingMs, random]) => {
					const plan = planDelay({ retry, backoff, ...(requested ? { requested } : {}), maxServerDelayMs, remainingMs, random });
					if (plan.kind === 'deadline') {
						expectSaneMs(plan.delayMs);
						return;
					}
					if (plan.kind === 'server-delay-too-long') {
						ok(requested !== undefined, 'too long without a request');
						ok(plan.requested.delayMs > maxServerDelayMs || plan.requested.delayMs >= remainingMs, 'too long without being too long');
						return;
					}
					expectSaneMs(plan.delayMs);
					ok(plan.delayMs < remainingMs, `${plan.delayMs} ends after the deadline (${remainingMs})`);
					const asked = requested && !Number.isNaN(requested.delayMs) ? Math.max(0, requested.delayMs) : undefined;
					if (asked !== undefined) {
						ok(plan.delayMs >= asked, `${plan.delayMs} earlier than asked (${asked})`);
						ok(plan.delayMs <= Math.max(backoff.maxDelayMs, Math.ceil(maxServerDelayMs + Math.min(1000, maxServerDelayMs * 0.1))), `${plan.delayMs} over the caps`);
					} else {
						ok(plan.delayMs <= backoff.maxDelayMs, `${plan.delayMs} over Max Delay`);
					}
				},
			),
	},
	{
		name: 'Header to plan, end to end: what a server sends never makes a wait over the caps or before it asked',
		inputs: 'random header objects and statuses through serverRequestedDelay, then planDelay with the default caps (30 s, 60 s)',
		runs: 5_000,
		check: () =>
			run(fc.tuple(headerBag, now, fc.integer({ min: 400, max: 599 }), retryNumber, randomSource), 5_000, ([headers, nowMs, status, retry, random]) => {
				const requested = serverRequestedDelay(headers, nowMs, { readRateLimitHeaders: true, status });
				const plan = planDelay({ retry, backoff: { strategy: 'full', baseDelayMs: 1000, maxDelayMs: 30_000 }, ...(requested ? { requested } : {}), maxServerDelayMs: 60_000, remainingMs: 300_000, random });
				if (plan.kind !== 'wait') return;
				expectSaneMs(plan.delayMs);
				ok(plan.delayMs <= 61_000, `${plan.delayMs} over the caps`);
				if (requested) ok(plan.delayMs >= requested.delayMs, `${plan.delayMs} earlier than asked (${requested.delayMs})`);
			}),
	},
];

describe('waits from headers and backoff: property-based', () => {
	it.each(PROPERTIES.map((p) => [p.name, p] as const))('%s', (_name, property) => {
		property.check();
	});

	it('docs/testing.md "Property-based tests" lists these properties', () => {
		const total = PROPERTIES.reduce((sum, p) => sum + p.runs, 0);
		const table = markdownTable(['Property', 'Inputs', 'Runs'], [...PROPERTIES.map((p) => [p.name, p.inputs, p.runs.toLocaleString('en-US')]), ['**all**', `fixed seed ${SEED}`, total.toLocaleString('en-US')]]);
		// with another seed the runs differ from what docs/testing.md reports: check only the usual run
		if (process.env.FC_SEED === undefined) expectDocSection('properties', table);
	});
});
