/**
 * Bad input through n8n's engine, against a local upstream that counts requests: every case of
 * bad-input/cases.ts, and the table "Bad input" of docs/testing.md built from what each case asserted.
 *
 * - A bad parameter fails the item with a message naming the parameter and the item, before any
 *   request for it; with the error output on, the item leaves there whole and the others succeed;
 *   without, the node fails with a NodeOperationError.
 * - Garbage a server sends (Retry-After, rate-limit headers) never turns into a NaN, negative or
 *   infinite wait: the value is ignored (plain backoff), obeyed (never earlier), or too long
 *   (no wait, handed on as docs/retries.md says).
 */
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import type { RetryStory } from '../../nodes/shared/core/retry-story';
import { expectDocSection, markdownTable } from '../support/doc-section';
import { GOOD_URL, PARAMETER_CASES, SERVER_CASES, type ParameterCase, type ServerCase } from './bad-input/cases';
import type { WorkflowJson, WorkflowRunResult } from './harness';
import type { LocalServer } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime, type VirtualRuntime } from './virtual-runtime';
import { httpWorkflow, loopWorkflow, requestNode, runHttp } from './workflow-builders';

const server = useLocalServers();

/** The docs row of each case, added once the case passed. */
const rows = new Map<string, [string, string, string]>();
const rowKey = (c: { node: string; input: string }) => `${c.node}: ${c.input}`;

const BAD_INDEX = 1;
const pathOf = (id: string) => `/items/${id}`;

/** Three items: good, bad, good; the value sits in `field` (default `v`); each knows its upstream URL. */
function itemsFor(c: ParameterCase, upstream: LocalServer, ids: string[]): INodeExecutionData[] {
	return ids.map((id) => {
		const url = `${upstream.url}${pathOf(id)}`;
		const raw = id.startsWith('bad') ? c.bad : c.good;
		const value = raw === GOOD_URL ? url : raw;
		return { json: { id, url, ...(value === undefined ? {} : { [c.field ?? 'v']: value as IDataObject[string] }) } };
	});
}

const requestsFor = (upstream: LocalServer, id: string) => upstream.requests.filter((r) => r.url.split('?')[0] === pathOf(id)).length;

/** The HTTP node's workflow for a parameter case: the URL comes from the item unless the case sets it. */
function httpCaseWorkflow(c: ParameterCase, onError?: INode['onError']): WorkflowJson {
	return httpWorkflow({ url: '={{ $json.url }}', ...c.parameters }, onError ? { onError } : {});
}

/** Resilient HTTP Request (one attempt) -> Backoff Delay -> back; Backoff's error output to "Backoff errors". */
function loopCaseWorkflow(backoffParameters: IDataObject, onError?: INode['onError'], http = requestNode('resilient', { url: '={{ $json.url }}' })): WorkflowJson {
	const wf = loopWorkflow(http, backoffParameters);
	if (!onError) return wf;
	const backoffNode = wf.nodes.find((n) => n.name === 'Backoff')!;
	backoffNode.onError = onError;
	wf.nodes.push({ id: 'errors', name: 'Backoff errors', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [600, 600], parameters: {} });
	wf.connections.Backoff.main.push([{ node: 'Backoff errors', type: 'main', index: 0 }]);
	return wf;
}

/** Every wait the nodes asked for is a whole, finite, non-negative number of ms. */
function expectSaneWaits(runtime: VirtualRuntime): void {
	for (const ms of runtime.sleeps) {
		expect(Number.isInteger(ms)).toBe(true);
		expect(ms).toBeGreaterThanOrEqual(0);
	}
}

/** The items that left a node on an output, over all its runs. */
function allOutput(run: WorkflowRunResult, node: string, output = 0): INodeExecutionData[] {
	return Array.from({ length: run.runsOf(node) }, (_, r) => run.outputOf(node, output, r)).flat();
}

describe('bad parameters: a clear error naming the parameter and the item, no request, no crash', () => {
	it.each(PARAMETER_CASES.map((c) => [rowKey(c), c] as const))('%s', async (_name, c) => {
		const message = (item: number) => c.error.replace('{item}', String(item));
		const isHttp = c.node === 'Resilient HTTP Request';
		// Backoff cases: each item's first request fails; a retry succeeds
		const upstream = await server((req, _n) => (isHttp || upstream.requests.filter((r) => r.url === req.url).length > 1 ? { status: 200, body: { ok: true } } : { status: 503 }));
		const runtime = createVirtualRuntime();
		const ids = ['good-0', 'bad-1', 'good-2'];
		const items = itemsFor(c, upstream, ids);

		// 1. With the error output: the bad item leaves there whole; the good items go on.
		const run = await runHttp(isHttp ? httpCaseWorkflow(c, 'continueErrorOutput') : loopCaseWorkflow(c.parameters, 'continueErrorOutput'), items, runtime);
		expect(run.status).toBe('success');
		const errorNode = isHttp ? 'HTTP' : 'Backoff';
		const [failed, ...more] = allOutput(run, errorNode, isHttp ? 1 : 2);
		expect(more).toHaveLength(0);
		// HTTP Request's error item: the message alone (Backoff Delay's: an object with its message)
		const failedMessage = isHttp ? failed.json.error : (failed.json.error as IDataObject).message;
		expect(failedMessage).toBe(message(BAD_INDEX));
		const { error: _error, ...original } = failed.json;
		expect(original).toEqual(items[BAD_INDEX].json);
		const succeeded = isHttp ? allOutput(run, 'HTTP', 0) : allOutput(run, 'OK');
		expect(succeeded).toHaveLength(2);
		// no request for the bad item (Backoff Delay: no retry; its one request was the first attempt)
		expect(requestsFor(upstream, 'bad-1')).toBe(isHttp ? 0 : 1);
		expect(requestsFor(upstream, 'good-0')).toBe(isHttp ? 1 : 2);
		expect(requestsFor(upstream, 'good-2')).toBe(isHttp ? 1 : 2);

		// 2. Without it: the node fails with a NodeOperationError, the bad item being item 0.
		const before = upstream.requests.length;
		const [badAlone] = itemsFor(c, upstream, ['bad-0']);
		const failing = await runHttp(isHttp ? httpCaseWorkflow(c) : loopCaseWorkflow(c.parameters), [badAlone], createVirtualRuntime());
		expect(failing.status).toBe('error');
		expect(failing.error?.message).toBe(message(0));
		expect(failing.error?.name).toBe('NodeOperationError');
		// the item is named in the error's context, also where the message is HTTP Request's own
		if (isHttp) expect((failing.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(0);
		expect(upstream.requests.length - before).toBe(isHttp ? 0 : 1);
		expectSaneWaits(runtime);

		const sent = isHttp ? 'no request' : 'no retry';
		rows.set(rowKey(c), [c.node, c.input, `${message(BAD_INDEX)}; ${sent}`]);
	});
});

/**
 * The editor holds a number field to its typeOptions' range; a workflow imported, written through
 * n8n's API or by an agent is not: an out-of-range value written as it is is refused the same way.
 */
describe('Max Attempts out of range written as a number, not an expression', () => {
	it.each([
		[-1, 'Parameter "Max Attempts" must be at least 1, got -1 (item 0)'],
		[1_000_000, 'Parameter "Max Attempts" must be at most 100, got 1000000 (item 0)'],
	])('%d: the node fails before any request, naming the parameter, its range and the value', async (maxAttempts, error) => {
		const upstream = await server(() => ({ status: 200, body: { ok: true } }));
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/x`, maxAttempts }), [{ json: {} }], createVirtualRuntime());
		expect(run.error?.message).toBe(error);
		expect(upstream.requests).toHaveLength(0);
	});
});

describe('a deadline already past in Backoff Delay', () => {
	it('gives up at once: no wait, no retry, the item whole on Give up', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const runtime = createVirtualRuntime();
		const item = { json: { id: 'late', url: `${upstream.url}/late`, _backoff: { attempt: 2, maxAttempts: 5, firstFailureAt: '2020-01-01T00:00:00.000Z' } } };
		const run = await runHttp(loopCaseWorkflow({ options: { totalDeadline: 60_000 } }), [item], runtime);

		expect(upstream.requests).toHaveLength(1);
		expect(runtime.sleeps).toHaveLength(0);
		const [gaveUp] = run.jsonOf('Gave up');
		expect(gaveUp).toMatchObject({ id: 'late', _backoff: { stoppedBecause: 'deadline-exceeded', attempt: 2 } });
		rows.set('deadline', ['Backoff Delay', 'Total Deadline already past (first failure in 2020)', 'Give up, `stoppedBecause: "deadline-exceeded"`; no wait, no retry']);
	});
});

describe('Backoff Delay with Continue (regular output)', () => {
	it('a broken item leaves through Give up with its original data and the error, and does not loop', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const wf = loopCaseWorkflow({});
		wf.nodes.find((n) => n.name === 'Backoff')!.onError = 'continueRegularOutput';
		const item = { json: { id: 'broken', url: `${upstream.url}/broken`, order: 7, _backoff: { attempt: 'three' } } };
		const run = await runHttp(wf, [item], createVirtualRuntime());

		expect(run.status).toBe('success');
		expect(upstream.requests).toHaveLength(1);
		expect(run.jsonOf('Gave up')).toEqual([{ ...item.json, error: { message: expect.stringMatching(/^Field "_backoff" of item 0 has attempt "three"/) } }]);
		rows.set('regular-output', ['Backoff Delay', 'attempt field holding text, with *On Error: Continue (regular output)*', 'Give up, with its original data and `error.message`; no retry']);
	});
});

const BACKOFF_MS = 100;
const story = (json: IDataObject): RetryStory => (json._retry ?? (json.error as IDataObject)?._retry) as unknown as RetryStory;

function serverResult(c: ServerCase): string {
	switch (c.outcome.kind) {
		case 'backoff':
			return `no valid wait asked: the backoff (${BACKOFF_MS} ms), then the retry`;
		case 'obeyed':
			return 'obeyed: the retry reached the server no earlier than asked (server clock)';
		case 'final':
			return c.node === 'Resilient HTTP Request' ? 'final: one request, error output, `reason: "final-status"`' : 'final: Give up, `stoppedBecause: "final-status"`';
		case 'too-long':
			return c.node === 'Resilient HTTP Request'
				? 'no wait: error output, `reason: "retry-after-too-long"` with a finite `retryAfterMs` and a valid `retryAt`'
				: 'no wait: Give up, `stoppedBecause: "retry-after-too-long"`';
	}
}

describe('garbage from the server: never a crash, NaN, negative or infinite wait', () => {
	it.each(SERVER_CASES.map((c) => [rowKey(c), c] as const))('%s', async (_name, c) => {
		const runtime = createVirtualRuntime();
		let firstAnsweredAt = 0;
		const upstream = await server((_req, n) => {
			if (n > 0) return { status: 200, body: { ok: true } };
			firstAnsweredAt = runtime.now();
			return { status: c.status, headers: c.headers(firstAnsweredAt) as Record<string, string>, ...(c.body !== undefined ? { body: c.body } : {}) };
		}, runtime.now);
		const isHttp = c.node === 'Resilient HTTP Request';
		const backoff = { baseDelay: BACKOFF_MS, maxDelay: BACKOFF_MS, jitter: 'none' };
		const run = isHttp
			? await runHttp(httpWorkflow({ url: `${upstream.url}/x`, maxAttempts: 2, retryOptions: backoff }, { onError: 'continueErrorOutput' }), [{ json: { id: 'x' } }], runtime)
			: await runHttp(
					loopWorkflow(requestNode('core', { url: `${upstream.url}/x`, options: { response: { response: { fullResponse: true, neverError: true } } } }), { maxAttempts: 2, options: backoff }, { successOutputToBackoff: true }),
					[{ json: { id: 'x' } }],
					runtime,
				);

		expect(run.status).toBe('success');
		expectSaneWaits(runtime);
		const decision = isHttp ? undefined : (run.jsonOf('Backoff', c.outcome.kind === 'too-long' || c.outcome.kind === 'final' ? 1 : 0)[0]._backoff as IDataObject);
		switch (c.outcome.kind) {
			case 'backoff': {
				expect(runtime.sleeps).toEqual([BACKOFF_MS]);
				expect(upstream.requests).toHaveLength(2);
				if (isHttp) expect(story(run.jsonOf('HTTP')[0]).history[1]).toMatchObject({ delayBeforeMs: BACKOFF_MS, delayReason: 'backoff' });
				else expect(decision).toMatchObject({ delayMs: BACKOFF_MS, delayReason: 'backoff' });
				break;
			}
			case 'obeyed': {
				expect(upstream.requests).toHaveLength(2);
				expect(runtime.sleeps).toHaveLength(1);
				expect(upstream.requests[1].receivedAt).toBeGreaterThanOrEqual(c.askedAt!(firstAnsweredAt));
				if (isHttp) expect(story(run.jsonOf('HTTP')[0]).history[1]).toMatchObject({ delayReason: 'retry-after', delayHeader: c.outcome.header });
				else expect(decision).toMatchObject({ delayReason: 'retry-after', delayHeader: c.outcome.header });
				break;
			}
			case 'final': {
				expect(upstream.requests).toHaveLength(1);
				expect(runtime.sleeps).toHaveLength(0);
				if (isHttp) expect(run.jsonOf('HTTP', 1)[0].error).toMatchObject({ reason: 'final-status', status: c.status });
				else expect(decision).toMatchObject({ stoppedBecause: 'final-status' });
				break;
			}
			case 'too-long': {
				expect(upstream.requests).toHaveLength(1);
				expect(runtime.sleeps).toHaveLength(0);
				if (isHttp) {
					const error = run.jsonOf('HTTP', 1)[0].error as IDataObject;
					expect(error.reason).toBe('retry-after-too-long');
					expect(Number.isFinite(error.retryAfterMs)).toBe(true);
					expect(error.retryAfterMs as number).toBeGreaterThan(60_000);
					expect(Number.isFinite(Date.parse(String(error.retryAt)))).toBe(true);
				} else {
					expect(decision).toMatchObject({ stoppedBecause: 'retry-after-too-long' });
					expect(Number.isFinite(decision!.serverDelayMs)).toBe(true);
				}
				break;
			}
		}
		rows.set(rowKey(c), [c.node, c.input, serverResult(c)]);
	});
});

const SECTION_INTRO = [
	`${all().length} cases, each run in n8n's engine against a local server that counts requests (\`test/engine/bad-input.test.ts\`).`,
	'A bad parameter is given to the second of three items (item 1), through an expression where the editor could not take',
	'the value. The result is the exact error message: with *On Error: Continue (using error output)* the item leaves',
	'there with its original data and the other two items succeed; without it the node fails with a NodeOperationError',
	'saying the same (the test sends the bad item alone then: item 0). No request is sent for the item (Backoff Delay: no',
	'retry). For the server-side cases the',
	`first response (the status each row names; 503 where it names none) carries the header or the body; backoff ${BACKOFF_MS} ms without jitter, other settings at their defaults;`,
	'every wait is checked to be a whole, finite, non-negative number of milliseconds.',
].join('\n');

function all(): string[] {
	return [...PARAMETER_CASES.map(rowKey), 'deadline', 'regular-output', ...SERVER_CASES.map(rowKey)];
}

describe('docs/testing.md', () => {
	it('"Bad input" lists every case with what the tests asserted', () => {
		const keys = all();
		// the table is only written when every case above passed
		expect(keys.filter((key) => !rows.has(key))).toEqual([]);
		expect(keys.length).toBeGreaterThanOrEqual(30);
		expectDocSection('bad-input', `${SECTION_INTRO}\n\n${markdownTable(['Node', 'Input', 'Result'], keys.map((key) => rows.get(key)!))}`);
	});
});
