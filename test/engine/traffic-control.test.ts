/**
 * Each API's traffic controller in n8n's engine, on the virtual clock (the unit tests check the
 * algorithm on a frozen clock; here it is the product, with real HTTP to local servers): pauses
 * when the API asks, holds during an outage and releases gradually, a retry budget that waits, a
 * pace, and what one execution learns for the next. Sleeps are virtual timers and the servers
 * read the same clock, so a pause of 400 ms is 400 virtual ms, jumped over when nothing is in
 * flight. Mostly the clock is virtual time alone (`noRealTime`), so what was waited is exact; the
 * outage test keeps real time on it, for the server's latency it measures (a slow machine can
 * spread what it sees there, never bunch it). No test bounds how long it takes.
 */
import type { IDataObject } from 'n8n-workflow';
import { ResilientHttpRedis } from '../../credentials/ResilientHttpRedis.credentials';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { getProcessTrafficEventCounts } from '../../nodes/shared/n8n/traffic/traffic-events';
import { admissionWatchingStore } from './admission-watch';
import { closeRedisStateStores } from '../../nodes/shared/state/redis-store';
import { startFlakyServer } from '../support/flaky-upstream';
import type { LocalHandlerResult, RecordedRequest } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();
const errorOf = (json: IDataObject) => json.error as IDataObject;
const storyOf = (json: IDataObject) => json._retry as IDataObject & { history: IDataObject[] };
const items = (n: number) => Array.from({ length: n }, (_, k) => ({ json: { k } }));

/** Most requests in flight at once, on the server's clock (each request lasts `latencyMs`). */
function peakInFlight(requests: RecordedRequest[], latencyMs: number): number {
	const events = requests.flatMap((r) => [
		[r.receivedAt, 1],
		[r.receivedAt + latencyMs, -1],
	]);
	events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	let now = 0;
	let peak = 0;
	for (const [, d] of events) peak = Math.max(peak, (now += d));
	return peak;
}

describe('the API asks everyone to wait', () => {
	it('a 429 with Retry-After pauses every item: none comes back before the wait, none collects a 429 of its own', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		let pausedUntil = 0;
		const api = await server((req, index) => {
			if (index === 0) {
				pausedUntil = runtime.now() + 400;
				return { status: 429, headers: { 'retry-after': '0.4' }, body: { error: 'slow down' } };
			}
			return { status: 200, body: { ok: true, k: req.url } };
		}, runtime.now);
		const wf = httpWorkflow({ url: `={{ "${api.url}/items/" + $json.k }}` }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(30), runtime);
		expect(run.jsonOf('HTTP', 0)).toHaveLength(30);
		// the first request's 429 paused the API: every request after the ones already in flight waited
		const statuses = api.requests.length;
		expect(statuses).toBeLessThanOrEqual(30 + 10);
		const afterPause = api.requests.filter((r) => r.receivedAt >= pausedUntil);
		// in flight before the 429 came back: at most the first window (10); none sent after it
		const during = api.requests.filter((r, i) => i >= 10 && r.receivedAt < pausedUntil);
		expect(during).toEqual([]);
		expect(afterPause.length).toBeGreaterThanOrEqual(20);
		// the items the pause stopped say so in their story
		const paused = run.jsonOf('HTTP', 0).filter((j) => ((storyOf(j).history.at(-1)?.traffic as IDataObject | undefined)?.waitedFor as IDataObject | undefined)?.paused);
		expect(paused.length).toBeGreaterThanOrEqual(10);
	});

	it('a pause longer than Max Server-Requested Delay: the items that wait leave at once with retryAt', async () => {
		const api = await server((_req, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200, body: { ok: true } }));
		const wf = httpWorkflow({ url: `${api.url}/x`, options: { maxConcurrency: 1 } }, { onError: 'continueErrorOutput' });
		// had an item waited out the pause, the clock would show 2 min
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const started = runtime.now();
		const run = await runHttp(wf, items(3), runtime);
		expect(runtime.sleeps).toEqual([]);
		expect(runtime.offsetMs()).toBeLessThan(60_000);
		expect(api.requests).toHaveLength(1);
		const failed = run.jsonOf('HTTP', 1);
		expect(failed.map((f) => errorOf(f).reason)).toEqual(['retry-after-too-long', 'retry-after-too-long', 'retry-after-too-long']);
		// the one sent has axios' code for a 4xx, as in HTTP Request's error; the others this node's
		expect(failed.map((f) => errorOf(f).code)).toEqual(['ERR_BAD_REQUEST', 'EPAUSED', 'EPAUSED']);
		for (const f of failed) expect(Date.parse(String(errorOf(f).retryAt)) - started).toBeGreaterThan(110_000);
		expect(String(storyOf(errorOf(failed[1])).summary)).toMatch(/^Not sent: The API paused all requests: for 2 min .*it asked to wait \(retry-after\).*more than Max Server-Requested Delay \(1 min\)/);
		// the pause is an event of the process's bus: counted once, for its API
		const counted = getProcessTrafficEventCounts().all().filter((c) => c.label === new URL(api.url).host);
		expect(counted.map((c) => c.counts)).toEqual([{ paused: 1 }]);
	});

	it("a daily limit without a reset time (HubSpot's DAILY 429) is probed after a minute, and the API is used again as soon as a probe gets through", async () => {
		let quotaBack = false;
		const api = await server(() => (quotaBack ? { status: 200, body: { ok: true } } : { status: 429, body: { status: 'error', message: 'You have reached your daily limit.', policyName: 'DAILY' } }));
		const wf = httpWorkflow({ url: `${api.url}/crm`, maxAttempts: 1 }, { onError: 'continueErrorOutput' });
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		// virtual time alone: the 429 is reported at the run's start, and the probe's minute counts from there
		const sentAt = runtime.now();
		const first = await runHttp(wf, items(1), runtime, { store });
		expect(first.jsonOf('HTTP', 1).map((f) => errorOf(f).reason)).toEqual(['attempts-exhausted']);
		// the quota comes back 20 s later; a call 30 s after the 429 waits for the probe, due a minute
		// after it (within Max Server-Requested Delay), instead of being refused for a day
		runtime.advance(20_000);
		quotaBack = true;
		runtime.advance(10_000);
		const probe = await runHttp(wf, items(1), runtime, { store });
		expect(probe.jsonOf('HTTP')).toEqual([expect.objectContaining({ ok: true })]);
		expect(api.requests).toHaveLength(2);
		expect(runtime.now() - sentAt).toBe(60_000);
		// the probe got through: the pause is over, the next items go at once
		const after = runtime.now();
		const later = await runHttp(wf, items(3), runtime, { store });
		expect(later.jsonOf('HTTP')).toHaveLength(3);
		expect(later.jsonOf('HTTP', 1)).toEqual([]);
		expect(api.requests).toHaveLength(5);
		expect(runtime.now() - after).toBe(0);
	});

	it('a spent quota advertised on successes pauses until the reset: no 429 at all', async () => {
		// a limit of 5 requests per 300 ms window, advertised on every answer
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		let windowStart = runtime.now();
		let used = 0;
		let rejected = 0;
		const api = await server((): LocalHandlerResult => {
			const now = runtime.now();
			if (now - windowStart >= 300) {
				windowStart = now;
				used = 0;
			}
			const reset = Math.max(0, (windowStart + 300 - now) / 1000).toFixed(3);
			if (used >= 5) {
				rejected++;
				return { status: 429, headers: { 'retry-after': reset, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } };
			}
			used++;
			return { status: 200, headers: { 'x-ratelimit-remaining': String(5 - used), 'x-ratelimit-reset': reset }, body: { ok: true } };
		}, runtime.now);
		const wf = httpWorkflow({ url: `${api.url}/q`, options: { maxConcurrency: 1 } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(20), runtime);
		expect(run.jsonOf('HTTP', 0)).toHaveLength(20);
		expect(rejected).toBe(0);
		expect(api.requests).toHaveLength(20);
	});
});

describe('holding during an outage', () => {
	const holdFast = { breakerBreak: 50, breakerMaxBreak: 200 };

	it('an outage of 600 ms: the items wait, single probes go, and every item succeeds after it with few requests', async () => {
		// real time runs on this clock: the server's 20 ms of latency are what peakInFlight measures
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true });
		const downUntil = runtime.now() + 600;
		const api = await server(() => (runtime.now() < downUntil ? { status: 503 } : { status: 200, body: { ok: true }, delayMs: 20 }), runtime.now);
		const wf = httpWorkflow({ url: `${api.url}/x`, sharedLimits: holdFast, retryOptions: { baseDelay: 10, maxDelay: 50 } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(40), runtime);
		expect(run.jsonOf('HTTP', 0)).toHaveLength(40);
		const duringOutage = api.requests.filter((r) => r.receivedAt < downUntil);
		// the window's first 10, their retries until the hold opened, then one probe at a time
		expect(duringOutage.length).toBeLessThanOrEqual(10 + 5 + 6);
		expect(api.requests.length).toBeLessThanOrEqual(40 + duringOutage.length);
		// released in slow start: the first requests after the outage are not all in flight at once
		const after = api.requests.filter((r) => r.receivedAt >= downUntil);
		expect(peakInFlight(after.slice(0, 4), 20)).toBeLessThanOrEqual(3);
		const held = run.jsonOf('HTTP', 0).filter((j) => storyOf(j).history.some((h) => (h.traffic as IDataObject | undefined)?.waitedFor && 'held' in ((h.traffic as IDataObject).waitedFor as IDataObject)));
		expect(held.length).toBeGreaterThanOrEqual(10);
		// the others waited at the gate too (for a slot in the halved, then restarted window)
		const waited = run.jsonOf('HTTP', 0).filter((j) => storyOf(j).history.some((h) => (h.traffic as IDataObject | undefined)?.waitedFor));
		expect(waited.length).toBeGreaterThanOrEqual(30);
	});

	it('a sustained outage: every item leaves within its deadline, at about one request per item or less', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 503 }));
		const wf = httpWorkflow({ url: `${api.url}/x`, sharedLimits: holdFast, retryOptions: { totalDeadline: 1000, baseDelay: 10, maxDelay: 50 } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(100), runtime);
		const failed = run.jsonOf('HTTP', 1);
		expect(failed).toHaveLength(100);
		// within its deadline, on the node's own clock: no attempt of an item started 1 s or more after
		// its first (items the hold kept back were never sent: no attempt at all)
		const attemptStarts = failed.map((f) => storyOf(errorOf(f)).history.map((h) => Date.parse(String(h.startedAt)))).filter((starts) => starts.length > 0);
		expect(attemptStarts.length).toBeGreaterThanOrEqual(10);
		for (const starts of attemptStarts) expect(Math.max(...starts) - starts[0]).toBeLessThan(1000);
		expect(api.requests.length).toBeLessThanOrEqual(110);
		const reasons = new Set(failed.map((f) => errorOf(f).reason));
		expect([...reasons].every((r) => ['api-held', 'deadline-exceeded', 'attempts-exhausted'].includes(String(r)))).toBe(true);
		expect(reasons.has('api-held')).toBe(true);
		const notSent = failed.find((f) => errorOf(f).reason === 'api-held' && errorOf(f).code === 'EAPIHELD')!;
		expect(String(storyOf(errorOf(notSent)).summary)).toMatch(/^Not sent: The API looks down/);
		expect(typeof errorOf(notSent).retryAt).toBe('string');
	});

	it('switched off, every item retries on its own', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 503 }));
		const wf = httpWorkflow({ url: `${api.url}/x`, maxAttempts: 3, sharedLimits: { breaker: false, budget: false }, retryOptions: { baseDelay: 1, maxDelay: 2 } }, { onError: 'continueErrorOutput' });
		await runHttp(wf, items(20), runtime);
		expect(api.requests).toHaveLength(60);
	});
});

describe('a retry budget that waits', () => {
	it('retries beyond the budget wait for room instead of failing: every item succeeds', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const seen = new Set<string>();
		const api = await server((req) => {
			if (seen.has(req.url)) return { status: 200, body: { ok: true } };
			seen.add(req.url);
			return { status: 500 };
		});
		// 5 retries per 1 s window and no share: 20 retries take four windows
		const wf = httpWorkflow(
			{ url: `={{ "${api.url}/items/" + $json.k }}`, sharedLimits: { breaker: false, budgetPercent: 0, budgetMinRetries: 5, budgetWindow: 1000 }, retryOptions: { baseDelay: 1, maxDelay: 2, totalDeadline: 10_000 } },
			{ onError: 'continueErrorOutput' },
		);
		const run = await runHttp(wf, items(20), runtime);
		expect(run.jsonOf('HTTP', 0)).toHaveLength(20);
		expect(api.requests).toHaveLength(40);
		// never more than 5 retries in any 900 ms (the window is 900 ms to 1 s long: buckets), counted
		// where the budget lets them go (the attempt's start in its story): on a loaded machine the
		// server may see two windows' retries arrive closer together than they were let go
		const retries = run.jsonOf('HTTP', 0).map((j) => Date.parse(String(storyOf(j).history[1].startedAt)));
		for (const r of retries) expect(retries.filter((x) => x > r - 900 && x <= r).length).toBeLessThanOrEqual(5);
		const waitedForBudget = run.jsonOf('HTTP', 0).filter((j) => storyOf(j).history.some((h) => ((h.traffic as IDataObject | undefined)?.waitedFor as IDataObject | undefined)?.budget));
		expect(waitedForBudget.length).toBeGreaterThanOrEqual(10);
	});

	it('a retry the server paced (429 with Retry-After) does not spend the budget; one after a 500 does', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server((req) => {
			const n = Number(/n=(\d+)/.exec(req.url)?.[1]);
			const first = !api.requests.slice(0, -1).some((r) => r.url === req.url);
			if (!first) return { status: 200, body: { ok: true } };
			return n === 0 ? { status: 429, headers: { 'retry-after': '0.05' } } : { status: 500 };
		});
		const wf = httpWorkflow({ url: `={{ "${api.url}/x?n=" + $json.k }}`, sharedLimits: { breaker: false, budgetPercent: 0, budgetMinRetries: 0 } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(2), runtime);
		expect(run.jsonOf('HTTP', 0)).toHaveLength(1);
		expect(storyOf(run.jsonOf('HTTP', 0)[0]).history.map((h) => h.status)).toEqual([429, 200]);
		const failed = run.jsonOf('HTTP', 1);
		expect(errorOf(failed[0])).toMatchObject({ reason: 'retry-budget-exhausted', status: 500 });
	});
});

describe('the pace, and what an execution learns for the next', () => {
	it('a rate limit of 20 per second spaces the requests 50 ms apart, across two executions running together', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const wf = httpWorkflow({ url: `${api.url}/x`, sharedLimits: { rateLimit: 20 } });
		const store = new MemoryStateStore();
		const runs = await Promise.all([runHttp(wf, items(10), runtime, { store }), runHttp(wf, items(10), runtime, { store })]);
		expect(api.requests).toHaveLength(20);
		// where the pace lets each request go: its attempt's start in its story, on the clock the
		// controller runs on, which here is virtual time alone (no real ms of HTTP on it): exactly
		// 19 gaps of 50 ms
		const times = runs.flatMap((run) => run.jsonOf('HTTP').map((j) => Date.parse(String(storyOf(j).history[0].startedAt)))).sort((a, b) => a - b);
		expect(times.map((t) => t - times[0])).toEqual(Array.from({ length: 20 }, (_, k) => k * 50));
	});

	it("Rate Limit 10 per second, 60 items, Total Deadline 2 s: the wait in line before an item's first request does not count, so all succeed, and the last one's retry gets its own 2 s", async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		let n = 0;
		// the 60th request fails once: its retry comes after 5.9 s in line, past the deadline counted from the start
		const api = await server(() => (++n === 60 ? { status: 503, body: { error: 'busy' } } : { status: 200, body: { ok: true } }));
		const wf = httpWorkflow({ url: `${api.url}/x`, sharedLimits: { rateLimit: 10 }, retryOptions: { totalDeadline: 2_000, baseDelay: 100, maxDelay: 100, retryStory: 'everyItem' } });
		const run = await runHttp(wf, items(60), runtime, { store: new MemoryStateStore() });
		expect(api.requests).toHaveLength(61);
		const stories = run.jsonOf('HTTP').map(storyOf);
		expect(stories.every((story) => story.stoppedBecause === 'success')).toBe(true);
		const last = stories.find((story) => story.history.length === 2);
		expect(last?.history.map((h) => h.status)).toEqual([503, 200]);
		const first = Date.parse(String(stories[0].history[0].startedAt));
		expect(Date.parse(String(last?.history[0].startedAt)) - first).toBeGreaterThanOrEqual(5_900);
	});

	it('the window a first execution learned is where the second starts', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 200, body: { ok: true }, delayMs: 5 }));
		const wf = httpWorkflow({ url: `${api.url}/x`, retryOptions: { retryStory: 'everyItem' } });
		// the windows the controller admitted requests under (a story tells of the window only where it made an attempt wait)
		const { store, granted } = admissionWatchingStore();
		await runHttp(wf, items(100), runtime, { store });
		const windows = () => granted.map((admission) => admission.window).filter((window): window is number => typeof window === 'number');
		const firstWindow = windows()[0];
		granted.length = 0;
		const second = await runHttp(wf, items(5), runtime, { store });
		expect(firstWindow).toBe(10);
		expect(windows()[0]).toBeGreaterThanOrEqual(100);
		// no wait, nothing of the controller in the story
		expect(second.jsonOf('HTTP').every((j) => storyOf(j).history.every((h) => h.traffic === undefined && h.budget === undefined))).toBe(true);
	});

	it('one controller per API: another origin, or another credential, has its own', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const down = await server(() => ({ status: 503 }));
		const up = await server(() => ({ status: 200, body: { ok: true } }));
		const store = new MemoryStateStore();
		await runHttp(httpWorkflow({ url: `${down.url}/x`, maxAttempts: 1, sharedLimits: { breakerBreak: 60_000, breakerMaxBreak: 60_000 } }, { onError: 'continueErrorOutput' }), items(10), runtime, { store });
		const other = await runHttp(httpWorkflow({ url: `${up.url}/x` }), items(3), runtime, { store });
		expect(other.jsonOf('HTTP')).toHaveLength(3);
		// the same scope on both joins them: the held API holds the other's requests too
		const joined = await runHttp(
			httpWorkflow({ url: `${up.url}/x`, retryOptions: { totalDeadline: 300 }, sharedLimits: { budgetScope: 'one-api', breakerBreak: 60_000, breakerMaxBreak: 60_000 } }, { onError: 'continueErrorOutput' }),
			items(1),
			runtime,
			{ store },
		);
		expect(joined.jsonOf('HTTP')).toHaveLength(1);
		await runHttp(httpWorkflow({ url: `${down.url}/x`, maxAttempts: 1, sharedLimits: { budgetScope: 'one-api', breakerBreak: 60_000, breakerMaxBreak: 60_000 } }, { onError: 'continueErrorOutput' }), items(10), runtime, { store });
		const held = await runHttp(
			httpWorkflow({ url: `${up.url}/x`, retryOptions: { totalDeadline: 300 }, sharedLimits: { budgetScope: 'one-api', breakerBreak: 60_000, breakerMaxBreak: 60_000 } }, { onError: 'continueErrorOutput' }),
			items(1),
			runtime,
			{ store },
		);
		expect(errorOf(held.jsonOf('HTTP', 1)[0]).reason).toBe('api-held');
	});
});

describe('shared state in Redis (queue mode)', () => {
	// the process-wide Redis clients reconnect in the background: close them, or Jest cannot exit
	afterAll(async () => closeRedisStateStores());

	it('an unreachable Redis never fails a request: the controllers fall back to this process', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const upstream = await startFlakyServer();
		const closed = await startFlakyServer();
		const port = closed.port;
		await closed.close();
		try {
			const wf = httpWorkflow({ url: `${upstream.url}/fail/1/redis-down`, stateStore: 'redis', retryOptions: { baseDelay: 1, maxDelay: 2 } }, { credentials: { resilientHttpRedis: { id: 'r', name: 'redis' } } });
			const run = await runHttp(wf, [{ json: {} }], runtime, { credentialTypes: [new ResilientHttpRedis()], credentials: { resilientHttpRedis: { host: '127.0.0.1', port, database: 0, user: '', password: '', ssl: false } } });
			expect(run.status).toBe('success');
			expect(run.jsonOf('HTTP')[0]._retry).toMatchObject({ attempts: 2, stoppedBecause: 'success' });
		} finally {
			await upstream.close();
		}
	});
});
