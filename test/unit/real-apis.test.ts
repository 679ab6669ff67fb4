/**
 * Every response of real-apis/cases.ts (official SDKs' code and tests, API docs) through the one
 * judgement of a response and the one decision, as the HTTP node makes them after an attempt; and
 * the table of docs/real-apis.md, written from what each row asserted.
 */
import { parseStatusList } from '../../nodes/shared/core/classify';
import { decideAfterFailure, type DecisionPolicy } from '../../nodes/shared/core/decide';
import { RETRY_DEFAULTS } from '../../nodes/shared/core/defaults';
import { formatDuration } from '../../nodes/shared/core/retry-story';
import { classifyResponse } from '../../nodes/shared/core/server-signals';
import { expectDocSection, markdownTable } from '../support/doc-section';
import { API_CASES, BACKOFF_MS, NOW, type ApiCase } from './real-apis/cases';

const RETRY_ON = parseStatusList(RETRY_DEFAULTS.retryOnStatuses);
const half = () => 0.5;

function policyFor(c: ApiCase): DecisionPolicy {
	return {
		maxAttempts: RETRY_DEFAULTS.maxAttempts,
		backoff: { strategy: 'none', baseDelayMs: BACKOFF_MS, maxDelayMs: RETRY_DEFAULTS.maxDelayMs },
		totalDeadlineMs: RETRY_DEFAULTS.totalDeadlineMs,
		maxServerDelayMs: RETRY_DEFAULTS.maxServerDelayMs,
		safety: { method: c.method ?? 'GET', hasIdempotencyKey: false, allowUnsafeRetries: false },
	};
}

function decide(c: ApiCase) {
	const failure = classifyResponse(
		{ status: c.status, ...(c.headers ? { headers: c.headers } : {}), ...(c.body !== undefined ? { body: c.body } : {}) },
		{ retryOn: RETRY_ON, obeyHints: !c.hintsOff, readRateLimitHeaders: true },
		NOW,
	);
	expect(failure).toBeDefined();
	return decideAfterFailure(failure!, { attempts: 1, startedAt: NOW }, policyFor(c), NOW, half);
}

function whatTheNodeDoes(c: ApiCase): string {
	const e = c.expect;
	if (e.retry) {
		if (e.by === 'backoff') return e.atLeastMs < BACKOFF_MS ? `retried after the backoff (longer than the ${formatDuration(e.atLeastMs)} asked)` : 'retried after the backoff';
		return `retried, not before ${formatDuration(e.atLeastMs)} (\`${e.by}\`)`;
	}
	if (e.stop === 'retry-after-too-long') return `no retry: error output at once, \`retryAt\` in ${formatDuration(e.retryAfterMs)}`;
	if (e.stop === 'not-safe-to-retry') return 'not retried: the server may have processed it (`not-safe-to-retry`)';
	return e.because ? 'final: error output at once, the server said so' : 'final: error output at once (`final-status`)';
}

const rows = new Map<ApiCase, string[]>();

describe('what real APIs say, judged and decided as the HTTP node does after an attempt', () => {
	it('has at least 60 responses, each with a source', () => {
		expect(API_CASES.length).toBeGreaterThanOrEqual(60);
		for (const c of API_CASES) expect(c.source.trim()).not.toBe('');
	});

	it.each(API_CASES.map((c) => [`${c.api}: ${c.response}`, c] as const))('%s', (_name, c) => {
		const decision = decide(c);
		const e = c.expect;
		if (e.retry) {
			expect(decision).toMatchObject({ retry: true });
			if (!decision.retry) return;
			expect(decision.delayMs).toBeGreaterThanOrEqual(e.atLeastMs);
			if (e.by === 'backoff') expect(decision).toMatchObject({ delayReason: 'backoff', delayMs: BACKOFF_MS });
			else expect(decision.delayHeader).toBe(e.by);
		} else {
			expect(decision).toMatchObject({ retry: false, stop: e.stop });
			if (decision.retry) return;
			if (e.stop === 'retry-after-too-long') expect(Math.abs(decision.serverDelay!.delayMs - e.retryAfterMs)).toBeLessThanOrEqual(1);
			if (e.stop === 'final-status' && e.because) expect(decision.why).toMatch(e.because);
			if (e.stop === 'final-status' && !e.because) expect(decision.why).toMatch(/its status is not in Retry On Status Codes$/);
		}
		rows.set(c, [c.api, c.response, whatTheNodeDoes(c), c.source]);
	});
});

describe('docs/real-apis.md', () => {
	it('"What real APIs say" lists every response with what the tests asserted', () => {
		expect(API_CASES.filter((c) => !rows.has(c)).map((c) => `${c.api}: ${c.response}`)).toEqual([]);
		const intro = [
			`${API_CASES.length} responses, each judged and decided by the node's own code (\`test/unit/real-apis.test.ts\`): a GET unless it says POST (sent without`,
			`an idempotency key), first attempt, defaults (Max Server-Requested Delay 1 min, Obey Server Retry Hints on) but a backoff of ${BACKOFF_MS} ms without jitter.`,
		].join('\n');
		expectDocSection('real-apis', `${intro}\n\n${markdownTable(['API', 'Response', 'What the node does', 'Source'], API_CASES.map((c) => rows.get(c)!))}`);
	});
});
