/**
 * Retry When, in n8n's engine against a local server: a job polled until its answer says it is done,
 * at the polling pace or the pace the server gives, within the total deadline; what a "not yet"
 * answer does not cost (the API's health, the retry budget, Max Attempts); a wrong expression.
 * Waits run on virtual time; the server stamps requests with it.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { formatDuration, type RetryStory } from '../../nodes/shared/core/retry-story';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { admissionWatchingStore, budgetRetriesOf } from './admission-watch';
import type { LocalResponse } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import type { WorkflowJson } from './harness';
import { BACKOFF_DELAY, httpWorkflow, ITEMS_SOURCE, runHttp } from './workflow-builders';

const server = useLocalServers();
const RUNNING = '={{ $response.body.status === "running" }}';

/** A job that answers `running` until `doneAfterMs` of virtual time since the first request, then `done`. */
function job(doneAfterMs: number, extra: (n: number) => Partial<LocalResponse> = () => ({})) {
	let startedAt: number | undefined;
	return (clock: () => number) => (_req: unknown, n: number): LocalResponse => {
		startedAt ??= clock();
		const done = clock() - startedAt >= doneAfterMs;
		return { status: 200, body: { id: 'job-1', status: done ? 'done' : 'running' }, ...extra(n) };
	};
}

async function poll(handler: ReturnType<typeof job>, parameters: IDataObject = {}) {
	const runtime = createVirtualRuntime();
	const upstream = await server(handler(runtime.now), runtime.now);
	const { retryOptions, ...rest } = parameters;
	const wf = httpWorkflow({ url: `${upstream.url}/jobs/1`, retryWhen: RUNNING, ...rest, retryOptions: { totalDeadline: 60_000, ...(retryOptions as IDataObject | undefined) } }, { onError: 'continueErrorOutput' });
	const { store, granted } = admissionWatchingStore();
	const run = await runHttp(wf, [{ json: { id: 1 } }], runtime, { store });
	const ok = run.status === 'success' ? run.jsonOf('HTTP', 0) : [];
	const failed = run.status === 'success' ? run.jsonOf('HTTP', 1) : [];
	const story = (ok[0]?._retry ?? (failed[0]?.error as IDataObject | undefined)?._retry) as unknown as RetryStory | undefined;
	return { run, upstream, runtime, ok, failed, story, budgetRetries: budgetRetriesOf(granted), error: failed[0]?.error as IDataObject | undefined };
}

/** The parameter error, however the engine carried it (thrown, or on the error output). */
function errorText(result: Awaited<ReturnType<typeof poll>>): string {
	const onOutput = result.failed[0]?.error;
	return String(result.run.error?.message ?? (typeof onOutput === 'string' ? onOutput : (onOutput as IDataObject | undefined)?.message) ?? '');
}

const gaps = (times: number[]) => times.slice(1).map((t, k) => t - times[k]);

describe('Retry When: poll until done', () => {
	it('asks again while the answer says running, at a growing pace, and returns the answer that says done', async () => {
		const { upstream, ok, story, budgetRetries } = await poll(job(10_000), { retryOptions: { pollInterval: 1000, pollGrowth: 2, maxPollInterval: 4000 } });
		expect(ok).toEqual([expect.objectContaining({ status: 'done', id: 'job-1' })]);
		const waits = story!.history.slice(1).map((r) => r.delayBeforeMs);
		// 1 s, 2 s, 4 s, then 4 s (the cap); jitter takes off at most a tenth of each
		expect(waits.length).toBeGreaterThanOrEqual(4);
		[1000, 2000, 4000, 4000].forEach((ceiling, k) => {
			expect(waits[k]).toBeLessThanOrEqual(ceiling);
			expect(waits[k]).toBeGreaterThanOrEqual(ceiling * 0.9);
		});
		for (const wait of gaps(upstream.requests.map((r) => r.receivedAt))) expect(wait).toBeGreaterThanOrEqual(900);
		expect(story).toMatchObject({ stoppedBecause: 'success', polls: upstream.requests.length - 1 });
		expect(story!.history.slice(1).every((r) => r.delayReason === 'poll')).toBe(true);
		// a poll is no retry: the API's retry budget counted none
		expect(budgetRetries).toHaveLength(upstream.requests.length);
		expect(budgetRetries.every((retries) => retries === 0)).toBe(true);
		expect(story!.summary).toMatch(/^Done on attempt \d+, after \d+ answers not done yet/);
	});

	it('polls past Max Attempts: a "not yet" answer is no failed attempt', async () => {
		const { upstream, ok } = await poll(job(8000), { maxAttempts: 2, retryOptions: { pollInterval: 1000, pollGrowth: 1, maxPollInterval: 1000 } });
		expect(ok).toHaveLength(1);
		expect(upstream.requests.length).toBeGreaterThan(5);
	});

	it('obeys a Retry-After on the 2xx answer instead of the poll interval', async () => {
		const { upstream, ok, story } = await poll(job(6000, () => ({ status: 202, headers: { 'retry-after': '3' } })), { retryOptions: { pollInterval: 500, maxPollInterval: 500 } });
		expect(ok).toHaveLength(1);
		for (const wait of gaps(upstream.requests.map((r) => r.receivedAt))) expect(wait).toBeGreaterThanOrEqual(3000);
		expect(story!.history[1]).toMatchObject({ delayReason: 'retry-after', delayHeader: 'retry-after' });
	});

	it('a Retry-After: 0 is not a busy loop: a second (or a shorter first poll interval) is the floor', async () => {
		const { upstream } = await poll(job(3000, () => ({ headers: { 'retry-after': '0' } })), { retryOptions: { pollInterval: 1000 } });
		for (const wait of gaps(upstream.requests.map((r) => r.receivedAt))) expect(wait).toBeGreaterThanOrEqual(1000);
	});

	it('stops at the total deadline with a reason of its own, the last answer and when to ask again', async () => {
		const { upstream, error, story, runtime } = await poll(job(Infinity), { retryOptions: { totalDeadline: 20_000 } });
		expect(upstream.requests.length).toBeGreaterThan(3);
		expect(error).toMatchObject({ reason: 'not-done-by-deadline', status: 200 });
		expect(story!.summary).toMatch(/^Gave up after \d+ attempts in .*: not done: the next poll \(in .*\) would start after the total deadline; last response 200 OK met Retry When$/);
		expect(Date.parse(error!.retryAt as string)).toBeGreaterThan(runtime.now() - 1);
		expect(error!.retryAfterMs).toBeGreaterThan(0);
	});

	it('with Never Error on, a job not done by the deadline still goes to the error output', async () => {
		const { ok, error } = await poll(job(Infinity), { retryOptions: { totalDeadline: 5000 }, options: { response: { response: { neverError: true } } } });
		expect(ok).toHaveLength(0);
		expect(error).toMatchObject({ reason: 'not-done-by-deadline' });
	});

	it('sees the item ($json) and the headers beside $response', async () => {
		const { upstream, ok } = await poll(job(0, () => ({ headers: { 'x-state': 'pending' } })), { retryWhen: '={{ $response.headers["x-state"] === "pending" && $json.id === 1 && $response.statusCode === 200 && $response.body.status !== "stop" }}', retryOptions: { totalDeadline: 3500 } });
		expect(ok).toHaveLength(0);
		expect(upstream.requests.length).toBeGreaterThan(1);
	});

	it('a failure while polling is retried as a failure, bounded by Max Attempts counted without the polls', async () => {
		const runtime = createVirtualRuntime();
		const upstream = await server((_req, n) => (n < 4 ? { status: 200, body: { status: 'running' } } : { status: 503 }), runtime.now);
		const wf = httpWorkflow({ url: `${upstream.url}/jobs/1`, retryWhen: RUNNING, maxAttempts: 2, retryOptions: { totalDeadline: 60_000, baseDelay: 100, maxDelay: 100, jitter: 'none' } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, [{ json: {} }], runtime);
		const error = run.jsonOf('HTTP', 1)[0].error as IDataObject;
		// 4 polls, then 2 failed attempts
		expect(upstream.requests).toHaveLength(6);
		expect(error).toMatchObject({ status: 503, reason: 'attempts-exhausted' });
	});

	it('a POST that answers "not yet" is not sent again without an idempotency key', async () => {
		const { upstream, error } = await poll(job(Infinity), { method: 'POST' });
		expect(upstream.requests).toHaveLength(1);
		expect(error).toMatchObject({ reason: 'not-safe-to-retry' });
	});

	it('empty, nothing changes: a 2xx is done', async () => {
		const { upstream, ok } = await poll(job(Infinity), { retryWhen: '' });
		expect(upstream.requests).toHaveLength(1);
		expect(ok).toEqual([expect.objectContaining({ status: 'running' })]);
	});

	it('a wrong expression fails the item naming the parameter, after one request', async () => {
		const result = await poll(job(0), { retryWhen: '={{ $response.body.status === }}' });
		expect(result.upstream.requests).toHaveLength(1);
		expect(errorText(result)).toMatch(/Parameter "Retry When" could not be evaluated on the answer: .* \(item 0\)/);
	});

	it('a fixed text is refused before any request; so is polling with no total deadline', async () => {
		const fixed = await poll(job(0), { retryWhen: 'true' });
		expect(fixed.upstream.requests).toHaveLength(0);
		expect(errorText(fixed)).toMatch(/Parameter "Retry When" must be an expression/);
		const endless = await poll(job(0), { retryOptions: { totalDeadline: 0 } });
		expect(endless.upstream.requests).toHaveLength(0);
		expect(errorText(endless)).toMatch(/Total Deadline \(Ms\)" is 0 \(none\), but Retry When polls until the total deadline/);
	});
});

describe('Retry When Body Is Not JSON', () => {
	const JSON_FORMAT = { response: { response: { responseFormat: 'json' } } };

	async function run(answers: LocalResponse[], retryOptions: IDataObject, options: IDataObject = JSON_FORMAT) {
		const runtime = createVirtualRuntime();
		const upstream = await server((_req, n) => answers[Math.min(n, answers.length - 1)], runtime.now);
		const wf = httpWorkflow({ url: `${upstream.url}/x`, maxAttempts: 3, options, retryOptions: { baseDelay: 100, maxDelay: 100, jitter: 'none', ...retryOptions } }, { onError: 'continueErrorOutput' });
		const result = await runHttp(wf, [{ json: {} }], runtime);
		return { upstream, result, ok: result.jsonOf('HTTP', 0), failed: result.jsonOf('HTTP', 1) };
	}
	const html: LocalResponse = { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Bad gateway, try later</body></html>' };

	it('a proxy page where JSON was asked for is retried, and the JSON answer after it is the item', async () => {
		const { upstream, ok } = await run([html, { status: 200, body: { id: 7 } }], { retryNotJson: true });
		expect(upstream.requests).toHaveLength(2);
		expect(ok).toEqual([expect.objectContaining({ id: 7 })]);
		expect((ok[0]._retry as unknown as RetryStory).history[0]).toMatchObject({ status: 200, errorCode: 'ENOTJSON' });
	});

	it('an empty body too; when it stays so the item fails saying what the body was', async () => {
		const { upstream, failed } = await run([{ status: 200 }], { retryNotJson: true });
		expect(upstream.requests).toHaveLength(3);
		const error = failed[0].error as IDataObject;
		expect(error).toMatchObject({ reason: 'attempts-exhausted', status: 200 });
		const story = error._retry as unknown as RetryStory;
		expect(story.summary).toMatch(/^Gave up after 3 attempts in .*: last response 200 OK with an empty body$/);
		expect(story.history.map((r) => r.errorCode)).toEqual(['ENOTJSON', 'ENOTJSON', 'ENOTJSON']);
	});

	it('off (the default), a page that is not JSON is not retried', async () => {
		const { upstream } = await run([html, { status: 200, body: { id: 7 } }], {});
		expect(upstream.requests).toHaveLength(1);
	});

	it('refused before any request where the Response Format is not JSON', async () => {
		const { upstream, failed } = await run([html], { retryNotJson: true }, {});
		expect(upstream.requests).toHaveLength(0);
		expect(String(failed[0].error)).toMatch(/Parameter "Retry Options > Retry When Body Is Not JSON" applies only when Options > Response > Response Format is JSON/);
	});
});

describe('Backoff Delay: Polling Until Done, the body of a Wait + IF loop', () => {
	/** Items -> HTTP Request (n8n's) -> IF not done -> Backoff Delay -> back to HTTP; IF done -> Done; Give up -> Gave up. */
	function pollLoop(url: string, backoff: IDataObject, http: IDataObject = {}): WorkflowJson {
		const node = (name: string, type: string, parameters: IDataObject, typeVersion = 1): INode => ({ id: name, name, type, typeVersion, position: [0, 0], parameters: parameters as INode['parameters'] });
		const notDone = {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
				conditions: [{ id: 'c1', leftValue: '={{ $json.body ? $json.body.status : $json.status }}', rightValue: 'done', operator: { type: 'string', operation: 'notEquals' } }],
				combinator: 'and',
			},
			options: {},
		};
		return {
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', {}),
				node('Items', ITEMS_SOURCE, {}),
				node('HTTP', 'n8n-nodes-base.httpRequest', { method: 'GET', url, options: {}, ...http }, 4.2),
				node('Not done?', 'n8n-nodes-base.if', notDone, 2.2),
				node('Backoff', BACKOFF_DELAY, { loopFor: 'polling', ...backoff }),
				node('Done', 'n8n-nodes-base.noOp', {}),
				node('Gave up', 'n8n-nodes-base.noOp', {}),
			],
			connections: {
				Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
				Items: { main: [[{ node: 'HTTP', type: 'main', index: 0 }]] },
				HTTP: { main: [[{ node: 'Not done?', type: 'main', index: 0 }]] },
				'Not done?': { main: [[{ node: 'Backoff', type: 'main', index: 0 }], [{ node: 'Done', type: 'main', index: 0 }]] },
				Backoff: { main: [[{ node: 'HTTP', type: 'main', index: 0 }], [{ node: 'Gave up', type: 'main', index: 0 }]] },
			},
		};
	}

	async function runLoop(doneAfterMs: number, backoff: IDataObject, http: IDataObject = {}, extra: (n: number) => Partial<LocalResponse> = () => ({})) {
		const runtime = createVirtualRuntime();
		const upstream = await server(job(doneAfterMs, extra)(runtime.now), runtime.now);
		const result = await runHttp(pollLoop(`${upstream.url}/jobs/1`, backoff, http), [{ json: { id: 1 } }], runtime);
		return { upstream, result, runtime };
	}
	const lastRun = (r: Awaited<ReturnType<typeof runLoop>>, node: string) => r.result.jsonOf(node, 0, r.result.runsOf(node) - 1);

	it('asks again at the same polling pace as Retry When, until the IF finds the job done', async () => {
		const r = await runLoop(10_000, { options: { totalDeadline: 60_000, pollInterval: 1000, pollGrowth: 2, maxPollInterval: 4000 } });
		expect(lastRun(r, 'Done')).toEqual([expect.objectContaining({ status: 'done' })]);
		const passes = r.result.runsOf('Backoff');
		const delays = Array.from({ length: passes }, (_, k) => (r.result.jsonOf('Backoff', 0, k)[0]._backoff as IDataObject).delayMs as number);
		[1000, 2000, 4000, 4000].forEach((ceiling, k) => {
			expect(delays[k]).toBeLessThanOrEqual(ceiling);
			expect(delays[k]).toBeGreaterThanOrEqual(ceiling * 0.9);
		});
		expect(r.result.jsonOf('Backoff', 0, passes - 1)[0]._backoff).toMatchObject({ polls: passes, delayReason: 'poll' });
		expect(r.upstream.requests).toHaveLength(passes + 1);
	});

	it("obeys the answer's Retry-After when the request passes its headers on (Full Response)", async () => {
		const r = await runLoop(8000, { options: { totalDeadline: 60_000 } }, { options: { response: { response: { fullResponse: true } } } }, () => ({ status: 202, headers: { 'retry-after': '4' } }));
		expect(lastRun(r, 'Done')).toHaveLength(1);
		expect(r.result.jsonOf('Backoff', 0, 0)[0]._backoff).toMatchObject({ delayReason: 'retry-after', delayHeader: 'retry-after' });
		expect((r.result.jsonOf('Backoff', 0, 0)[0]._backoff as IDataObject).delayMs).toBeGreaterThanOrEqual(4000);
	});

	it('gives up at the total deadline with not-done-by-deadline, the same stop as the HTTP node', async () => {
		const r = await runLoop(Infinity, { options: { totalDeadline: 20_000 } });
		const gaveUp = lastRun(r, 'Gave up');
		expect(gaveUp).toHaveLength(1);
		expect(gaveUp[0]._backoff).toMatchObject({ stoppedBecause: 'not-done-by-deadline' });
		expect((gaveUp[0]._backoff as IDataObject).message).toMatch(/^Gave up after \d+ attempts: not done: the next poll \(in .*\) would start after the total deadline; last response 200, not done yet met Retry When$/);
	});

	it('a long wait goes through n8n\'s waiting state', async () => {
		const r = await runLoop(Infinity, { options: { totalDeadline: 3_600_000, pollInterval: 120_000, maxPollInterval: 120_000 } });
		expect(r.result.isWaiting).toBe(true);
		expect(r.result.waitTill!.getTime() - r.runtime.now()).toBeGreaterThan(90_000);
	});

	it('needs a total deadline, refused naming it', async () => {
		const r = await runLoop(Infinity, {});
		expect(String(r.result.error?.message)).toMatch(/Parameter "Options > Total Deadline \(Ms\)" is 0 \(none\), but Polling Until Done polls until the total deadline/);
	});
});

describe('Follow Asynchronous Operations', () => {
	/** A job API: the POST answers 202 naming a status URL; the status says running for `runningMs`, then how it ended. */
	async function operationsApi(runtime: ReturnType<typeof createVirtualRuntime>, answer: (path: string, runningFor: number, base: string) => LocalResponse) {
		let startedAt: number | undefined;
		const api = await server((req) => {
			if (req.method === 'POST') startedAt = runtime.now();
			return answer(req.url, runtime.now() - (startedAt ?? runtime.now()), api.url);
		}, runtime.now);
		return api;
	}

	async function follow(answer: (path: string, runningFor: number, base: string) => LocalResponse, parameters: IDataObject = {}) {
		const runtime = createVirtualRuntime();
		const api = await operationsApi(runtime, answer);
		const { retryOptions, ...rest } = parameters;
		const wf = httpWorkflow(
			{ method: 'POST', url: `${api.url}/jobs`, idempotencyKeyMode: 'generate', sendHeaders: true, headerParameters: { parameters: [{ name: 'Authorization', value: 'Bearer secret-token' }] }, ...rest, retryOptions: { followAsyncOperations: true, totalDeadline: 120_000, ...(retryOptions as IDataObject | undefined) } },
			{ onError: 'continueErrorOutput' },
		);
		const store = new MemoryStateStore();
	const run = await runHttp(wf, [{ json: { id: 1 } }], runtime, { store });
		const ok = run.jsonOf('HTTP', 0);
		const failed = run.jsonOf('HTTP', 1);
		const story = (ok[0]?._retry ?? (failed[0]?.error as IDataObject | undefined)?._retry) as unknown as RetryStory;
		return { api, ok, failed, story, error: failed[0]?.error as IDataObject | undefined };
	}

	const azure = (state: (ms: number) => string) => (path: string, ms: number): LocalResponse => {
		if (path === '/jobs') return { status: 202, headers: { 'operation-location': '/operations/1' }, body: { id: 'op-1' } };
		if (path === '/operations/1') return { status: 200, body: { status: state(ms), ...(state(ms) === 'succeeded' ? { resourceLocation: '/results/1' } : {}) } };
		return { status: 200, body: { result: 42 } };
	};

	it('Operation-Location: polls the status until it succeeds, then returns the resource it names', async () => {
		const pace = { pollInterval: 1000, pollGrowth: 2, maxPollInterval: 4000 };
		const { api, ok, story } = await follow(azure((ms) => (ms < 5000 ? 'running' : 'succeeded')), { retryOptions: pace });
		expect(ok).toEqual([expect.objectContaining({ result: 42 })]);
		const paths = api.requests.map((r) => `${r.method} ${r.url}`);
		// the 202 was the first "not yet": the status is asked for after 1 s, 2 s, then 4 s (less the jitter)
		expect(paths).toEqual(['POST /jobs', 'GET /operations/1', 'GET /operations/1', 'GET /operations/1', 'GET /results/1']);
		const waits = story.history.slice(1, 4).map((r) => r.delayBeforeMs);
		[1000, 2000, 4000].forEach((ceiling, k) => {
			expect(waits[k]).toBeLessThanOrEqual(ceiling);
			expect(waits[k]).toBeGreaterThanOrEqual(ceiling * 0.9);
		});
		expect(story.history.slice(1, 4).map((r) => r.delayReason)).toEqual(['poll', 'poll', 'poll']);
		gaps(api.requests.slice(0, 4).map((r) => r.receivedAt)).forEach((gap, k) => expect(gap).toBeGreaterThanOrEqual(waits[k]));
		// the status GETs carry no body and no idempotency key; the same origin gets the credential
		expect(api.requests.slice(1).every((r) => r.body === '' && r.headers['idempotency-key'] === undefined && r.headers.authorization === 'Bearer secret-token')).toBe(true);
		expect(story.history.map((r) => r.attempt)).toEqual(paths.map((_, k) => k + 1));
		expect(story.polls).toBe(paths.length - 3);
	});

	it('a failed operation goes to the error output, saying how it ended', async () => {
		const { error, story } = await follow(azure((ms) => (ms < 2000 ? 'running' : 'failed')));
		expect(error).toMatchObject({ reason: 'final-status', status: 200 });
		expect(story.summary).toMatch(/^The operation ended "failed" \(operation-location: http:\/\/127\.0\.0\.1:\d+\/operations\/1\)$/);
	});

	it('Location: asks the status URL until it stops answering 202, and its answer is the result', async () => {
		const { api, ok, story } = await follow((path, ms): LocalResponse => {
			if (path === '/jobs') return { status: 202, headers: { location: '/exports/1', 'retry-after': '2' } };
			return ms < 4000 ? { status: 202, headers: { 'retry-after': '1' } } : { status: 200, body: { file: 'export.csv' } };
		});
		expect(ok).toEqual([expect.objectContaining({ file: 'export.csv' })]);
		// the 202's Retry-After sets the wait before the first status request, each later 202's the next
		expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /jobs', 'GET /exports/1', 'GET /exports/1', 'GET /exports/1']);
		const waits = story.history.slice(1).map((r) => r.delayBeforeMs);
		[2000, 1000, 1000].forEach((asked, k) => {
			expect(waits[k]).toBeGreaterThanOrEqual(asked);
			// the spread that keeps items told the same Retry-After apart: a tenth at most
			expect(waits[k]).toBeLessThanOrEqual(asked * 1.1);
		});
		expect(story.history.slice(1).map((r) => r.delayReason)).toEqual(['retry-after', 'retry-after', 'retry-after']);
		gaps(api.requests.map((r) => r.receivedAt)).forEach((gap, k) => expect(gap).toBeGreaterThanOrEqual(waits[k]));
	});

	it('a status URL on another origin gets no credential', async () => {
		const runtime = createVirtualRuntime();
		const other = await server(() => ({ status: 200, body: { status: 'succeeded' } }), runtime.now);
		const { ok } = await follow(() => ({ status: 202, headers: { 'operation-location': `${other.url}/operations/9` } }));
		expect(ok).toEqual([expect.objectContaining({ status: 'succeeded' })]);
		expect(other.requests).toHaveLength(1);
		expect(other.requests[0].headers.authorization).toBeUndefined();
	});

	it('off, a 202 is the answer, as in HTTP Request', async () => {
		const { api, ok } = await follow(azure(() => 'running'), { retryOptions: { followAsyncOperations: false } });
		expect(api.requests).toHaveLength(1);
		expect(ok).toEqual([expect.objectContaining({ id: 'op-1' })]);
	});

	it('an operation still running at the deadline stops with not-done-by-deadline', async () => {
		const { api, error, story } = await follow(azure(() => 'running'), { retryOptions: { totalDeadline: 15_000 } });
		expect(error).toMatchObject({ reason: 'not-done-by-deadline' });
		// the summary tells the whole operation: the start's request and every status poll, in its whole time
		expect(story.attempts).toBe(api.requests.length);
		expect(story.summary.startsWith(`Gave up after ${api.requests.length} attempts in ${formatDuration(story.elapsedMs)}: `)).toBe(true);
	});
});
