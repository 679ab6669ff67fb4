/**
 * Any node behind an API's traffic controller, in n8n's engine on the virtual clock: Traffic
 * Control's Wait for Room before the node that calls the API, Report Outcome after it. The node
 * between is an app node as n8n writes them (n8n's OpenAI node, Google Sheets...): it calls the API
 * with n8n's request helper, wraps a failure in NodeApiError, and under On Error: Continue hands on
 * only the message; or n8n's HTTP Request with its full response (status and headers on the item).
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { appNode, APP_NODE } from './support/app-node';
import type { Runtime } from '../../nodes/shared/core/runtime';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { getProcessOpenAdmissions } from '../../nodes/shared/core/traffic/open-admissions';
import { TrafficControl } from '../../nodes/TrafficControl/TrafficControl.node';
import { trafficView } from '../../nodes/shared/core/traffic/operator';
import { runWorkflow, type WorkflowJson } from './harness';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { itemsSource, ITEMS_SOURCE } from './workflow-builders';

const server = useLocalServers();
const TRAFFIC_CONTROL = 'n8n-nodes-resilient-http.resilientHttpTrafficControl';
const APP = APP_NODE;

const node = (name: string, type: string, x: number, parameters: IDataObject, extra: Partial<INode> = {}): INode => ({ id: name, name, type, typeVersion: 1, position: [x, 0], parameters: parameters as INode['parameters'], ...extra });

/** Items -> Wait for Room -> the node between -> Report Outcome -> OK / Failed. */
function guardedWorkflow(between: INode, waitOptions: IDataObject = {}, scope = 'the-api'): WorkflowJson {
	return {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 0, {}),
			node('Items', ITEMS_SOURCE, 100, {}),
			node('Wait', TRAFFIC_CONTROL, 200, { operation: 'waitForRoom', apiScope: scope, waitOptions }),
			between,
			node('Report', TRAFFIC_CONTROL, 400, { operation: 'reportOutcome' }),
			node('OK', 'n8n-nodes-base.noOp', 500, {}),
			node('Failed', 'n8n-nodes-base.noOp', 500, {}),
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Wait', type: 'main', index: 0 }]] },
			Wait: { main: [[{ node: between.name, type: 'main', index: 0 }]] },
			[between.name]: { main: [[{ node: 'Report', type: 'main', index: 0 }]] },
			Report: { main: [[{ node: 'OK', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
		},
	};
}

const app = (url: string) => node('App', APP, 300, { url }, { onError: 'continueRegularOutput' });

function run(wf: WorkflowJson, items: IDataObject[], runtime: Runtime, store: MemoryStateStore, executionId?: string) {
	return runWorkflow(wf, {
		nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(runtime, store), [APP]: appNode, [ITEMS_SOURCE]: itemsSource(items.map((json) => ({ json }))) },
		...(executionId ? { executionId } : {}),
	});
}

/** What the store holds for the scope's API (Get State's view): one API, scoped. */
async function apiState(store: MemoryStateStore, runtime: Runtime) {
	const states = await store.list(runtime.now());
	expect(states).toHaveLength(1);
	return states[0];
}

describe('Wait for Room and Report Outcome around an app node', () => {
	it('the items go through unchanged and come out on Success; their room is given back', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const api = await server(() => ({ status: 200, body: { answer: 'ok' } }), () => runtime.now());
		const result = await run(guardedWorkflow(app(`${api.url}/v1/thing`)), [{ n: 1 }, { n: 2 }, { n: 3 }], runtime, store);
		expect(result.status).toBe('success');
		expect(result.jsonOf('Wait')).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
		expect(result.jsonOf('OK')).toEqual([{ answer: 'ok' }, { answer: 'ok' }, { answer: 'ok' }]);
		expect(result.runsOf('Failed')).toBe(0);
		expect((await apiState(store, runtime)).inFlight).toBe(0);
		expect(getProcessOpenAdmissions().size).toBe(0);
	});

	it('a batch larger than a new API\'s window (50 items, window 10) goes through at once: its items are reported only after the node between has run them all', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const api = await server(() => ({ status: 200, body: { ok: true } }), () => runtime.now());
		const started = runtime.now();
		const result = await run(guardedWorkflow(app(`${api.url}/v1/thing`)), Array.from({ length: 50 }, (_, k) => ({ k })), runtime, store);
		expect(result.jsonOf('OK')).toHaveLength(50);
		expect(runtime.now() - started).toBeLessThan(1000);
	});

	it("Rate Limit paces executions of one item each (webhooks): the API sees them spaced by the pace, across executions", async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const seen: number[] = [];
		const api = await server(() => (seen.push(runtime.now()), { status: 200, body: { ok: true } }), () => runtime.now());
		const wf = guardedWorkflow(app(`${api.url}/v1/thing`), { rateLimit: 5 });
		const results = await Promise.all(Array.from({ length: 8 }, (_, k) => run(wf, [{ k }], runtime, store)));
		expect(results.every((r) => r.status === 'success' && r.jsonOf('OK').length === 1)).toBe(true);
		const sorted = [...seen].sort((a, b) => a - b);
		// 5 a second: the k-th call never before k intervals of 200 ms from the first (a call may go a
		// little after its slot, on the virtual clock as on a busy machine, never before it)
		sorted.forEach((t, k) => expect(t - sorted[0]).toBeGreaterThanOrEqual(k * 200 - 10));
	});

	it('Rate Limit Per Key 2 a second, executions of one item each (webhooks) of two tenants: each tenant\'s calls are spaced by its own pace, and one tenant\'s do not hold back the other\'s', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const seen: Record<string, number[]> = { a: [], b: [] };
		const api = await server((req) => (seen[new URL(req.url, 'http://x').searchParams.get('t') ?? ''].push(runtime.now()), { status: 200, body: { ok: true } }), () => runtime.now());
		const wf = guardedWorkflow(app(`=${api.url}/v1/thing?t={{ $json.tenant }}`), { fairShareKey: '={{ $json.tenant }}', keyRateLimit: 2 });
		const started = runtime.now();
		const tenants = ['a', 'a', 'a', 'a', 'a', 'a', 'b', 'b'];
		const results = await Promise.all(tenants.map((tenant, k) => run(wf, [{ k, tenant }], runtime, store)));
		expect(results.every((r) => r.status === 'success' && r.jsonOf('OK').length === 1)).toBe(true);
		const a = [...seen.a].sort((x, y) => x - y);
		a.forEach((t, k) => expect(t - a[0]).toBeGreaterThanOrEqual(k * 500 - 10));
		// b's two calls: one at once, the next one interval of its own pace later, while a's wait
		expect(Math.max(...seen.b) - started).toBeLessThan(700);
	});

	it('Rate Limit 10 per second, 60 items, Max Wait 2 s: the wait in line does not count, every item goes, back from a loop too', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const api = await server(() => ({ status: 200, body: { ok: true } }), () => runtime.now());
		const wf = guardedWorkflow(app(`${api.url}/v1/thing`), { rateLimit: 10, maxWait: 2000 });
		const result = await run(wf, Array.from({ length: 60 }, (_, k) => ({ k })), runtime, store);
		expect(result.jsonOf('OK')).toHaveLength(60);
		expect(result.runsOf('Failed')).toBe(0);
		// items back from a Backoff Delay loop (its annotation): their turn in the line takes 4 s too
		const looped = Array.from({ length: 40 }, (_, k) => ({ k, _backoff: { attempt: 2, maxAttempts: 5, firstFailureAt: new Date(runtime.now()).toISOString() } }));
		const again = await run({ ...wf, nodes: wf.nodes.map((n) => (n.name === 'Wait' ? { ...n, onError: 'continueErrorOutput' as const } : n)) }, looped, runtime, store);
		expect(again.jsonOf('OK')).toHaveLength(40);
	});

	it("a 429 that n8n's HTTP Request hands on with its headers (full response, Never Error) pauses the API for everyone: another execution's item waits at Wait for Room until the Retry-After", async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const seen: number[] = [];
		const api = await server(() => {
			seen.push(runtime.now());
			return seen.length === 1 ? { status: 429, headers: { 'retry-after': '30' }, body: { error: 'slow down' } } : { status: 200, body: { ok: true } };
		}, () => runtime.now());
		const http = node('App', 'n8n-nodes-base.httpRequest', 300, { method: 'GET', url: `${api.url}/v1/thing`, options: { response: { response: { fullResponse: true, neverError: true } } } }, { typeVersion: 4.2 });
		const wf = guardedWorkflow(http);
		const first = await run(wf, [{ k: 1 }], runtime, store);
		expect(first.jsonOf('Failed')).toHaveLength(1);
		expect(first.jsonOf('Failed')[0]).toMatchObject({ statusCode: 429 });
		const second = await run(wf, [{ k: 2 }], runtime, store);
		expect(second.jsonOf('OK')).toHaveLength(1);
		expect(seen).toHaveLength(2);
		expect(seen[1] - seen[0]).toBeGreaterThanOrEqual(30_000);
	});

	it("an app node's failures, message only (n8n's status headlines): 503s in a row hold the API, and an item that finds no room within Max Wait fails with why, its data kept", async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		let calls = 0;
		const api = await server(() => (calls++, { status: 503, body: { error: 'down' } }), () => runtime.now());
		const wf = guardedWorkflow(app(`${api.url}/v1/thing`), { maxWait: 100 });
		const failing = await run(wf, Array.from({ length: 6 }, (_, k) => ({ k })), runtime, store);
		const failed = failing.jsonOf('Failed');
		expect(failed).toHaveLength(6);
		expect(failed[0].error).toMatch(/^Service unavailable/);
		const state = await apiState(store, runtime);
		expect(trafficView(state.key, state.data, state.inFlight, runtime.now())).toMatchObject({ held: { state: 'open' } });
		const before = calls;
		const held = await run(guardedWorkflow(app(`${api.url}/v1/thing`), { maxWait: 100 }), [{ k: 'late', text: 'kept' }], runtime, store);
		expect(held.nodeErrorOf('Wait')?.message ?? '').toMatch(/No room for the item at the API: The API looks down/);
		expect(calls).toBe(before);
		// On Error: Continue (using error output) on Wait for Room: the item leaves there, with its data and why, and the API is not called
		const routed = guardedWorkflow(app(`${api.url}/v1/thing`), { maxWait: 100 });
		routed.nodes[2].onError = 'continueErrorOutput';
		const kept = await run(routed, [{ k: 'late', text: 'kept' }], runtime, store);
		expect(kept.jsonOf('Wait', 1)).toEqual([{ k: 'late', text: 'kept', error: expect.stringMatching(/^No room for the item at the API: The API looks down.*\(item 0\)$/) }]);
		expect(kept.runsOf('App')).toBe(0);
		expect(calls).toBe(before);
	});

	it('an item that finds no room and stops the workflow stops the other items\' waits: none is admitted for the node that will not run', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		let calls = 0;
		const api = await server(() => (calls++, calls === 1 ? { status: 429, headers: { 'retry-after': '30' }, body: {} } : { status: 200, body: {} }), () => runtime.now());
		const http = node('App', 'n8n-nodes-base.httpRequest', 300, { method: 'GET', url: `${api.url}/v1/thing`, options: { response: { response: { fullResponse: true, neverError: true } } } }, { typeVersion: 4.2 });
		await run(guardedWorkflow(http), [{ k: 0 }], runtime, store);
		// paused 30 s: item 0 may wait 1 s, item 1 a minute
		const stopped = await run(guardedWorkflow(http, { maxWait: '={{ $json.k === 0 ? 1000 : 60000 }}' }), [{ k: 0 }, { k: 1 }], runtime, store);
		expect(stopped.status).toBe('error');
		expect(stopped.error?.message).toMatch(/^No room for the item at the API: The API paused all requests/);
		expect(calls).toBe(1);
		// past the pause's end: a wait left running would be admitted now
		runtime.advance(31_000);
		await new Promise((resolve) => setTimeout(resolve, 50));
		const [state] = await store.list(runtime.now());
		expect(state.inFlight).toBe(0);
		expect(getProcessOpenAdmissions().size).toBe(0);
	});

	it('a parameter that is not right fails before any call, naming the parameter and the item', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		let calls = 0;
		const api = await server(() => (calls++, { status: 200, body: {} }), () => runtime.now());
		// an empty text is refused by n8n itself before the run (a required parameter): an expression that gives one reaches the node
		const noScope = await run(guardedWorkflow(app(`${api.url}/x`), {}, '={{ "" }}'), [{ k: 1 }], runtime, store);
		expect(noScope.error?.message).toBe('Parameter "API Scope" must name the API the next node calls, e.g. openai (item 0)');
		const badRate = await run(guardedWorkflow(app(`${api.url}/x`), { rateLimit: '={{ "fast" }}' }), [{ k: 1 }], runtime, store);
		expect(badRate.error?.message).toMatch(/^Parameter "Rate Limit" must be a number, got "fast" \(item 0\)$/);
		expect(calls).toBe(0);
	});
});

