/**
 * Traffic Control's Get Metrics in n8n's engine: a small scenario through Resilient HTTP Request
 * against a local server that answers 429 with Retry-After, then 503, then 200, and the metrics
 * read back as items and as Prometheus text, whose counters equal what the server saw; promtool
 * checks the text. With the memory store the counts are this process's; with Redis the fleet's
 * (a second store stands in for another worker, and its counts add to this one's).
 */
import type { ICredentialDataDecryptedObject, IDataObject, INode } from 'n8n-workflow';
import { ResilientHttpRedis } from '../../credentials/ResilientHttpRedis.credentials';
import { closeRedisStateStores, RedisStateStore } from '../../nodes/shared/state/redis-store';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { TrafficControl } from '../../nodes/TrafficControl/TrafficControl.node';
import type { Runtime } from '../../nodes/shared/core/runtime';
import { promtoolAvailable, promtoolCheckMetrics, samplesOf } from '../support/promtool';
import { runWorkflow, type RunWorkflowOptions, type WorkflowJson } from './harness';
import { useLocalServers } from './servers';
import { httpWorkflow, runHttp } from './workflow-builders';
import { createVirtualRuntime } from './virtual-runtime';

const server = useLocalServers();
const TRAFFIC_CONTROL = 'n8n-nodes-resilient-http.resilientHttpTrafficControl';
const ITEMS = 4;

/** Each path: 429 with Retry-After: 1 first, 503 next, 200 after; the statuses it answered, counted. */
async function flakyApi() {
	const answered: Record<string, number> = {};
	const seen = new Map<string, number>();
	const api = await server((req) => {
		const n = (seen.get(req.url) ?? 0) + 1;
		seen.set(req.url, n);
		const status = n === 1 ? 429 : n === 2 ? 503 : 200;
		answered[String(status)] = (answered[String(status)] ?? 0) + 1;
		return status === 429 ? { status, headers: { 'retry-after': '1' } } : { status, body: { n } };
	});
	return Object.assign(api, { answered });
}

function trafficControlWorkflow(parameters: IDataObject, credentials?: INode['credentials']): WorkflowJson {
	const node: INode = { id: 'tc', name: 'Traffic Control', type: TRAFFIC_CONTROL, typeVersion: 1, position: [200, 0], parameters: parameters as INode['parameters'], ...(credentials ? { credentials } : {}) };
	return {
		nodes: [{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, node],
		connections: { Start: { main: [[{ node: 'Traffic Control', type: 'main', index: 0 }]] } },
	};
}

/** Traffic Control's Get Metrics with `parameters`; `redis`: the Redis credential's data, for Shared State: Redis. */
async function getMetrics(runtime: Runtime, store: MemoryStateStore, parameters: IDataObject, redis?: ICredentialDataDecryptedObject): Promise<IDataObject[]> {
	const wf = trafficControlWorkflow({ operation: 'getMetrics', ...parameters }, redis ? { resilientHttpRedis: { id: 'r', name: 'redis' } } : undefined);
	const run = await runWorkflow(wf, {
		nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(runtime, store) },
		...(redis ? { credentialTypes: [new ResilientHttpRedis()], credentials: { resilientHttpRedis: redis } } : {}),
	});
	expect(run.error).toBeUndefined();
	return run.jsonOf('Traffic Control', 0);
}

function expectPromtoolPasses(text: string): void {
	if (!promtoolAvailable()) {
		console.warn('promtool check skipped: promtool is not installed (Debian package prometheus; RH_REQUIRE_PROMTOOL=1 makes this fail)');
		return;
	}
	expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
}

/** The scenario: ITEMS items, each 429 -> 503 -> 200; returns the server's counts and the API's host. */
async function runScenario(runtime: Runtime, store: MemoryStateStore, extra: IDataObject = {}, options: RunWorkflowOptions = {}) {
	const api = await flakyApi();
	const wf = httpWorkflow({ url: `={{ "${api.url}/item/" + $json.k }}`, retryOptions: { baseDelay: 10, maxDelay: 20 }, ...extra }, { onError: 'continueErrorOutput', ...(extra.stateStore === 'redis' ? { credentials: { resilientHttpRedis: { id: 'r', name: 'redis' } } } : {}) });
	const run = await runHttp(wf, Array.from({ length: ITEMS }, (_, k) => ({ json: { k } })), runtime, { store, ...options });
	expect(run.jsonOf('HTTP', 0)).toHaveLength(ITEMS);
	return { api, host: new URL(api.url).host };
}

describe('Get Metrics (memory: this process)', () => {
	it("as items: the API's requests, resends by reason and answers by status are what the server saw; the state now beside them", async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const { api, host } = await runScenario(runtime, store);
		expect(api.answered).toEqual({ '429': ITEMS, '503': ITEMS, '200': ITEMS });

		const [item] = await getMetrics(runtime, store, { api: host });
		expect(item).toMatchObject({
			label: host,
			requests: { first: ITEMS, resend: 2 * ITEMS, poll: 0 },
			resends: { throttled: ITEMS, server_error: ITEMS, loop: 0 },
			responses: api.answered,
			errors: { timeout: 0, network: 0 },
			stops: { 'api-held': 0 },
			state: { label: host, paused: null },
		});
		// the first 429 paused the API: the others' first requests waited for it
		expect(item.pauses).toBeGreaterThanOrEqual(1);
		expect(item.pauseEnds).toMatchObject({ time: item.pauses });
		// another API, or none named: only what the filter names
		expect(await getMetrics(runtime, store, { api: 'nowhere.example' })).toEqual([]);
	});

	it('as Prometheus text: one item, the text in the field asked for, its counters those of the items; promtool check metrics passes', async () => {
		const runtime = createVirtualRuntime(8, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const { api, host } = await runScenario(runtime, store);
		const [item] = await getMetrics(runtime, store, { api: host, format: 'prometheus', outputField: 'body' });
		expect(item).toMatchObject({ contentType: 'text/plain; version=0.0.4; charset=utf-8', apis: 1 });
		const text = String(item.body);
		expectPromtoolPasses(text);
		const samples = samplesOf(text);
		const key = [...samples.keys()].find((series) => series.startsWith('resilient_http_client_requests_total{'))?.match(/api_key="([^"]+)"/)?.[1];
		const series = (name: string, extra = '') => samples.get(`${name}{api="${host}",api_key="${key}"${extra}}`);
		expect(series('resilient_http_client_responses_total', ',http_response_status_code="429"')).toBe(api.answered['429']);
		expect(series('resilient_http_client_responses_total', ',http_response_status_code="503"')).toBe(api.answered['503']);
		expect(series('resilient_http_client_request_resend_count_total', ',reason="throttled"')).toBe(ITEMS);
		expect(series('resilient_http_client_requests_total', ',kind="first"')).toBe(ITEMS);
		expect(series('resilient_http_traffic_hold_state', ',state="closed"')).toBe(1);
		expect(series('resilient_http_client_active_requests')).toBe(0);

		// more traffic: every counter stays or grows
		await runHttp(httpWorkflow({ url: `${api.url}/item/again`, retryOptions: { baseDelay: 10, maxDelay: 20 } }), [{ json: {} }], runtime, { store });
		const [later] = await getMetrics(runtime, store, { api: host, format: 'prometheus', outputField: 'body' });
		const after = samplesOf(String(later.body));
		for (const [name, value] of samples) if (name.includes('_total{')) expect(after.get(name)).toBeGreaterThanOrEqual(value);
		expect(after.get(`resilient_http_client_requests_total{api="${host}",api_key="${key}",kind="first"}`)).toBe(ITEMS + 1);
	});

	it("a request that waited for the API's pause: counted under paused, with the time it waited", async () => {
		const runtime = createVirtualRuntime(11, { sleepsAsTimers: true, noRealTime: true });
		const store = new MemoryStateStore();
		const api = await server((req) => (req.url === '/pause' ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200, body: {} }));
		const host = new URL(api.url).host;
		// one attempt: the 429 pauses the API for 2 s and its item leaves; the next execution's request waits it out
		await runHttp(httpWorkflow({ url: `${api.url}/pause`, maxAttempts: 1 }, { onError: 'continueErrorOutput' }), [{ json: {} }], runtime, { store });
		const next = await runHttp(httpWorkflow({ url: `${api.url}/ok` }), [{ json: {} }], runtime, { store });
		expect(next.jsonOf('HTTP', 0)).toHaveLength(1);
		const [item] = await getMetrics(runtime, store, { api: host });
		expect(item).toMatchObject({ requests: { first: 2, resend: 0 }, responses: { '429': 1, '200': 1 }, waits: { paused: 1, window: 0 }, pauses: 1 });
		const waited = (item.waitSeconds as IDataObject).paused as number;
		// the pause's 2 s, and at most the tenth of it that new requests wait more after it (retries go first)
		expect(waited).toBeGreaterThanOrEqual(2);
		expect(waited).toBeLessThanOrEqual(2.2);
	});

	it('refuses a Format it does not know, naming the parameter', async () => {
		const runtime = createVirtualRuntime(9, { sleepsAsTimers: true, noRealTime: true });
		const run = await runWorkflow(trafficControlWorkflow({ operation: 'getMetrics', format: 'csv' }), { nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(runtime, new MemoryStateStore()) } });
		expect(run.error?.message).toMatch(/The parameter "Format" must be items or prometheus, got "csv"/);
	});

	it('refuses an empty Put Output in Field, naming the parameter', async () => {
		const runtime = createVirtualRuntime(12, { sleepsAsTimers: true, noRealTime: true });
		const run = await runWorkflow(trafficControlWorkflow({ operation: 'getMetrics', format: 'prometheus', outputField: ' ' }), { nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(runtime, new MemoryStateStore()) } });
		expect(run.error?.message).toMatch(/The parameter "Put Output in Field" must name a field/);
	});
});

const REDIS_URL = process.env.RH_TEST_REDIS_URL;
(REDIS_URL ? describe : describe.skip)(`Get Metrics (Redis: the fleet)${REDIS_URL ? '' : ' (skipped: RH_TEST_REDIS_URL not set)'}`, () => {
	// the process-wide Redis clients reconnect in the background: close them, or Jest cannot exit
	afterAll(async () => closeRedisStateStores());
	const url = new URL(REDIS_URL ?? 'redis://127.0.0.1:6379');
	const credential = { host: url.hostname, port: Number(url.port || 6379), database: 0, user: '', password: '', ssl: false };

	it("this process's counts and another worker's add up in Redis; the state is Redis's; promtool check metrics passes", async () => {
		const runtime = createVirtualRuntime(10, { sleepsAsTimers: true, noRealTime: true });
		const memory = new MemoryStateStore();
		const { api, host } = await runScenario(runtime, memory, { stateStore: 'redis' }, { credentialTypes: [new ResilientHttpRedis()], credentials: { resilientHttpRedis: credential } });
		const [item] = await getMetrics(runtime, memory, { api: host, stateStore: 'redis' }, credential);
		expect(item).toMatchObject({ label: host, requests: { first: ITEMS, resend: 2 * ITEMS }, responses: api.answered, state: { label: host } });
		// nothing went to the memory store: the state read is Redis's
		expect(await memory.list(runtime.now())).toEqual([]);

		// another worker (a store of its own on the same Redis) counts 3 more first requests and 2 more 429s of the API
		const worker = new RedisStateStore({ host: credential.host, port: credential.port, database: 0, tls: false });
		worker.count(String(item.api), host, { 'req:first': 3, 'status:429': 2 });
		await worker.close();
		const [fleet] = await getMetrics(runtime, memory, { api: host, stateStore: 'redis', format: 'prometheus' }, credential);
		const text = String(fleet.metrics);
		expectPromtoolPasses(text);
		const samples = samplesOf(text);
		expect(samples.get(`resilient_http_client_requests_total{api="${host}",api_key="${String(item.api)}",kind="first"}`)).toBe(ITEMS + 3);
		expect(samples.get(`resilient_http_client_responses_total{api="${host}",api_key="${String(item.api)}",http_response_status_code="429"}`)).toBe(api.answered['429'] + 2);
	});
});
