/**
 * Limits where the server puts them, and the operator's view and steering, in n8n's engine:
 * a GitHub-like API whose `search` bucket is spent keeps serving its `core` routes; the Traffic
 * Control node reads every API's state from the store the request nodes use, and ends a pause or a
 * hold by hand, after which the next request goes at once.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { ResilientHttpRedis } from '../../credentials/ResilientHttpRedis.credentials';
import { systemRuntime } from '../../nodes/shared/core/runtime';
import { closeRedisStateStores } from '../../nodes/shared/state/redis-store';
import { getProcessTrafficEventCounts } from '../../nodes/shared/n8n/traffic/traffic-events';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { TrafficControl } from '../../nodes/TrafficControl/TrafficControl.node';
import { runWorkflow, type WorkflowJson } from './harness';
import { useLocalServers } from './servers';
import { httpWorkflow, ITEMS_SOURCE, itemsSource, runHttp } from './workflow-builders';

const server = useLocalServers();
const TRAFFIC_CONTROL = 'n8n-nodes-resilient-http.resilientHttpTrafficControl';
const errorOf = (json: IDataObject) => json.error as IDataObject;
const items = (paths: string[]) => paths.map((path) => ({ json: { path } }));

/** GitHub's answers: /search/* with its bucket spent for an hour, everything else in `core`. */
async function githubLike() {
	const resetAt = Math.floor(Date.now() / 1000) + 3600;
	const api = await server((req) => {
		if (req.url.startsWith('/search/')) {
			return { status: 403, headers: { 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetAt), 'x-ratelimit-resource': 'search' }, body: { message: 'API rate limit exceeded' } };
		}
		return { status: 200, headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(resetAt), 'x-ratelimit-resource': 'core' }, body: { ok: true } };
	});
	return Object.assign(api, { resetAt });
}

function trafficControlWorkflow(parameters: IDataObject): WorkflowJson {
	const node: INode = { id: 'tc', name: 'Traffic Control', type: TRAFFIC_CONTROL, typeVersion: 1, position: [200, 0], parameters: parameters as INode['parameters'] };
	return {
		nodes: [{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, node],
		connections: { Start: { main: [[{ node: 'Traffic Control', type: 'main', index: 0 }]] } },
	};
}

const runTrafficControl = (store: MemoryStateStore, parameters: IDataObject, onError?: INode['onError']) => {
	const wf = trafficControlWorkflow(parameters);
	if (onError) wf.nodes[1].onError = onError;
	return runWorkflow(wf, { nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(systemRuntime, store) } });
};

async function trafficControl(store: MemoryStateStore, parameters: IDataObject): Promise<IDataObject[]> {
	const run = await runTrafficControl(store, parameters);
	expect(run.error).toBeUndefined();
	return run.jsonOf('Traffic Control', 0);
}

describe('limits where the server puts them: a named bucket', () => {
	it("a spent search bucket: calls to the API's other resources are sent at once, calls to search go to the error output with retryAt, unsent", async () => {
		const api = await githubLike();
		const store = new MemoryStateStore();
		const wf = httpWorkflow({ url: `={{ "${api.url}" + $json.path }}` }, { onError: 'continueErrorOutput' });
		const first = await runHttp(wf, items(['/search/issues']), systemRuntime, { store });
		expect(first.jsonOf('HTTP', 1)).toHaveLength(1);
		expect(api.requests).toHaveLength(1);

		const second = await runHttp(wf, items(['/search/issues', '/repos/a/b', '/search/issues', '/repos/c/d', '/users/x']), systemRuntime, { store });
		// core's routes, one of them never called before, were sent; search's not
		expect(api.requests.map((r) => r.url).slice(1).sort()).toEqual(['/repos/a/b', '/repos/c/d', '/users/x']);
		expect(second.jsonOf('HTTP', 0)).toHaveLength(3);
		const failed = second.jsonOf('HTTP', 1);
		expect(failed).toHaveLength(2);
		for (const f of failed) {
			expect(errorOf(f)).toMatchObject({ reason: 'retry-after-too-long', code: 'EPAUSED' });
			expect(Date.parse(String(errorOf(f).retryAt)) - Date.now()).toBeGreaterThan(3500_000);
			expect(String(errorOf(f).message)).toMatch(/rate-limit bucket "search"/);
		}
	});
});

/**
 * Zendesk's answers (its "best practices for avoiding rate limiting"): every answer carries the
 * account's count of the minute (`ratelimit-remaining`, `ratelimit-reset`); List Tickets carries its
 * own limit too (`zendesk-ratelimit-tickets-index`), spent here for 40 min, with a 429.
 */
async function zendeskLike(accountRemaining = 600) {
	const api = await server((req) => {
		const account = { 'x-rate-limit': '700', 'ratelimit-limit': '700', 'ratelimit-remaining': String(accountRemaining), 'ratelimit-reset': '41' };
		if (req.url.startsWith('/api/v2/tickets.json')) {
			return { status: 429, headers: { ...account, 'retry-after': '2400', 'zendesk-ratelimit-tickets-index': 'total=100; remaining=0; resets=2400' }, body: { error: 'APIRateLimitExceeded' } };
		}
		return { status: 200, headers: account, body: { ok: true } };
	});
	return api;
}

describe("limits where the server puts them: an endpoint's own quota (Zendesk)", () => {
	it('a spent List Tickets limit: calls to the other endpoints are sent at once, List Tickets calls go to the error output with retryAt, unsent', async () => {
		const api = await zendeskLike();
		const store = new MemoryStateStore();
		const wf = httpWorkflow({ url: `={{ "${api.url}" + $json.path }}` }, { onError: 'continueErrorOutput' });
		await runHttp(wf, items(['/api/v2/tickets.json']), systemRuntime, { store });
		expect(api.requests).toHaveLength(1);

		const second = await runHttp(wf, items(['/api/v2/tickets.json', '/api/v2/users/1.json', '/api/v2/tickets.json?page=2', '/api/v2/groups.json']), systemRuntime, { store });
		expect(api.requests.map((r) => r.url).slice(1).sort()).toEqual(['/api/v2/groups.json', '/api/v2/users/1.json']);
		expect(second.jsonOf('HTTP', 0)).toHaveLength(2);
		const failed = second.jsonOf('HTTP', 1);
		expect(failed).toHaveLength(2);
		for (const f of failed) {
			expect(errorOf(f)).toMatchObject({ reason: 'retry-after-too-long', code: 'EPAUSED' });
			expect(Date.parse(String(errorOf(f).retryAt)) - Date.now()).toBeGreaterThan(2_300_000);
			expect(String(errorOf(f).message)).toMatch(/rate-limit bucket "tickets-index"/);
		}
	});

	it("the account's count beside it is the API's: spent, it pauses every endpoint until its reset", async () => {
		const api = await zendeskLike(0);
		const store = new MemoryStateStore();
		const wf = httpWorkflow({ url: `={{ "${api.url}" + $json.path }}`, retryOptions: { maxServerDelay: 1000 } }, { onError: 'continueErrorOutput' });
		await runHttp(wf, items(['/api/v2/tickets.json']), systemRuntime, { store });
		const second = await runHttp(wf, items(['/api/v2/users/1.json']), systemRuntime, { store });
		expect(api.requests).toHaveLength(1);
		const [failed] = second.jsonOf('HTTP', 1);
		expect(String(errorOf(failed).message)).toMatch(/paused all requests.*quota is spent/);
		expect(Date.parse(String(errorOf(failed).retryAt)) - Date.now()).toBeGreaterThan(30_000);
	});
});

describe('the Traffic Control node', () => {
	it("Get State and Get Metrics show the API, not its Fair Share Keys' own limits (kept beside it in the store)", async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const store = new MemoryStateStore();
		const wf = httpWorkflow({ url: `${api.url}/x`, sharedLimits: { fairShareKey: '={{ $json.tenant }}', keyRateLimit: 100, keyMaxInFlight: 5 } });
		await runHttp(wf, ['a', 'b', 'c'].map((tenant) => ({ json: { tenant } })), systemRuntime, { store });
		// the store holds the API and each key's limits; the operator sees the API alone
		expect(await store.list(Date.now())).toHaveLength(4);
		const states = await trafficControl(store, { operation: 'getState' });
		expect(states).toHaveLength(1);
		expect(states[0]).toMatchObject({ label: new URL(api.url).host });
		// the process's counts hold the other tests' APIs too: none is a key's
		const metrics = await trafficControl(store, { operation: 'getMetrics' });
		expect(metrics.filter((m) => m.label === new URL(api.url).host)).toHaveLength(1);
		expect(metrics.filter((m) => String(m.api).includes(':key:'))).toEqual([]);
	});

	it('Get State shows each API: its spent bucket, window, budget; End Pause ends it and the next call is sent', async () => {
		const api = await githubLike();
		const store = new MemoryStateStore();
		const wf = httpWorkflow({ url: `={{ "${api.url}" + $json.path }}` }, { onError: 'continueErrorOutput' });
		await runHttp(wf, items(['/search/issues', '/repos/a/b']), systemRuntime, { store });
		const host = new URL(api.url).host;

		const [state] = await trafficControl(store, { operation: 'getState' });
		expect(state).toMatchObject({ label: host, paused: null, held: null, window: { inFlight: 0 }, budget: { firstAttempts: 2 } });
		expect(state.api).toMatch(/^api:[0-9a-f]{32}$/);
		expect(state.buckets).toEqual(
						// the reset the server stated, to the ms: carried as an instant from the header, never re-based
			expect.arrayContaining([{ bucket: 'search', remaining: 0, resetAt: new Date(api.resetAt * 1000).toISOString(), spent: true }, expect.objectContaining({ bucket: 'core', remaining: 4999, spent: false })]),
		);
		expect(await trafficControl(store, { operation: 'getState', api: 'other.example' })).toEqual([]);

		const [ended] = await trafficControl(store, { operation: 'resume', api: `${api.url}/anything`, end: 'pause' });
		expect(ended.ended).toEqual(expect.arrayContaining(['bucket search', 'bucket core']));
		expect(ended.buckets).toEqual([]);
		const before = api.requests.length;
		await runHttp(wf, items(['/search/issues']), systemRuntime, { store });
		expect(api.requests.length).toBe(before + 1);
	});

	it('a hold: Get State says held and when the next probe goes; End Hold sends the next request at once', async () => {
		let down = true;
		const api = await server(() => (down ? { status: 500 } : { status: 200, body: { ok: true } }));
		const store = new MemoryStateStore();
		const wf = httpWorkflow({ url: `${api.url}/x`, maxAttempts: 1, sharedLimits: { breakerBreak: 600_000, breakerMaxBreak: 600_000 } }, { onError: 'continueErrorOutput' });
		await runHttp(wf, Array.from({ length: 5 }, (_, k) => ({ json: { k } })), systemRuntime, { store });
		const [held] = await trafficControl(store, { operation: 'getState' });
		expect(held).toMatchObject({ held: { state: 'open', openings: 1 } });
		// the hold, and then its end by hand, are events of the process's bus, counted for the API
		const counted = () => getProcessTrafficEventCounts().countsOf(String(held.api));
		expect(counted()).toMatchObject({ held: 1 });
		expect(counted().resumed).toBeUndefined();
		expect(Date.parse(String((held.held as IDataObject).nextProbeAt)) - Date.now()).toBeGreaterThan(500_000);
		// while held, a request leaves unsent (its next probe comes after its deadline)
		down = false;
		const refused = await runHttp(wf, [{ json: {} }], systemRuntime, { store });
		expect(errorOf(refused.jsonOf('HTTP', 1)[0])).toMatchObject({ reason: 'api-held' });
		expect(api.requests).toHaveLength(5);

		const [ended] = await trafficControl(store, { operation: 'resume', api: new URL(api.url).host, end: 'hold' });
		expect(ended).toMatchObject({ ended: ['outage hold'], held: null, window: { size: 1, slowStart: true } });
		expect(counted()).toMatchObject({ held: 1, resumed: 1 });
		const after = await runHttp(wf, [{ json: {} }], systemRuntime, { store });
		expect(after.jsonOf('HTTP', 0)).toHaveLength(1);
		expect(api.requests).toHaveLength(6);
	});

	it('End Pause or Hold without an API is refused before anything changes, naming the parameter', async () => {
		const store = new MemoryStateStore();
		const run = await runWorkflow(trafficControlWorkflow({ operation: 'resume', api: ' ' }), { nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(systemRuntime, store) } });
		expect(run.error?.message).toMatch(/The parameter "API" must name an API/);
	});

	describe('the API parameter finds an API however it is named', () => {
		/** An API on 127.0.0.1 with a pause of an hour: a Get State label 127.0.0.1:<port>. */
		async function pausedApi(store: MemoryStateStore) {
			const api = await server(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
			await runHttp(httpWorkflow({ url: `${api.url}/x`, maxAttempts: 1 }, { onError: 'continueErrorOutput' }), [{ json: {} }], systemRuntime, { store });
			const [state] = await trafficControl(store, { operation: 'getState' });
			expect(state.paused).not.toBeNull();
			return { api, key: String(state.api), label: String(state.label) };
		}

		it.each([
			['the host alone', (url: URL) => url.hostname],
			['host:port', (url: URL) => url.host],
			['a URL on it', (url: URL) => `${url.origin}/some/path?q=1`],
			['an origin', (url: URL) => url.origin],
			['host:port with a path', (url: URL) => `${url.host}/x`],
			['the label Get State shows', (_url: URL, label: string) => label],
			['its key', (_url: URL, _label: string, key: string) => key],
			['its key in capitals', (_url: URL, _label: string, key: string) => key.toUpperCase()],
		])('End Pause or Hold with %s ends the pause', async (_form, nameOf) => {
			const store = new MemoryStateStore();
			const { api, key, label } = await pausedApi(store);
			const [ended] = await trafficControl(store, { operation: 'resume', api: nameOf(new URL(api.url), label, key), end: 'both' });
			expect(ended).toMatchObject({ api: key, label, paused: null });
			expect(ended.ended).toEqual(expect.arrayContaining([expect.any(String)]));
			expect(await trafficControl(store, { operation: 'getState', api: new URL(api.url).hostname })).toEqual([expect.objectContaining({ api: key, paused: null })]);
		});

		it('an API the store does not keep: the item fails naming "API" and the item, listing the APIs it keeps; nothing ends', async () => {
			const store = new MemoryStateStore();
			const { key, label } = await pausedApi(store);
			const run = await runTrafficControl(store, { operation: 'resume', api: 'api.example.com', end: 'both' });
			expect(run.error?.message).toBe(`Parameter "API" names no API kept in this n8n process's memory: got "api.example.com" (item 0). The APIs kept in this n8n process's memory: ${label} (${key}).`);
			const [state] = await trafficControl(store, { operation: 'getState' });
			expect(state.paused).not.toBeNull();
		});

		it('an empty store: the error says no API is kept there', async () => {
			const run = await runTrafficControl(new MemoryStateStore(), { operation: 'resume', api: '127.0.0.1' });
			expect(run.error?.message).toMatch(/^Parameter "API" names no API kept in this n8n process's memory: got "127.0.0.1" \(item 0\)\. No API's controller is kept in this n8n process's memory/);
		});

		it.each([
			['continueRegularOutput', 0],
			['continueErrorOutput', 1],
		] as const)('On Error %s: the item that names no API goes out with its error (output %i), the API the other names is resumed', async (onError, errorOutput) => {
			const store = new MemoryStateStore();
			const { api, key } = await pausedApi(store);
			const wf = trafficControlWorkflow({ operation: 'resume', api: '={{ $json.api }}', end: 'both' });
			wf.nodes[1].onError = onError;
			wf.nodes.push({ id: 'items', name: 'Items', type: ITEMS_SOURCE, typeVersion: 1, position: [100, 0], parameters: {} });
			wf.connections = { Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] }, Items: { main: [[{ node: 'Traffic Control', type: 'main', index: 0 }]] } };
			const source = itemsSource([{ json: { api: 'nowhere.example' } }, { json: { api: new URL(api.url).host } }]);
			const run = await runWorkflow(wf, { nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(systemRuntime, store), [ITEMS_SOURCE]: source } });
			expect(run.error).toBeUndefined();
			const [failed] = run.outputOf('Traffic Control', errorOutput).filter((item) => item.json.error !== undefined);
			expect(failed.pairedItem).toEqual({ item: 0 });
			expect(String(failed.json.error)).toMatch(/^Parameter "API" names no API kept in this n8n process's memory: got "nowhere.example" \(item 0\)/);
			expect(run.outputOf('Traffic Control', 0)).toHaveLength(errorOutput === 0 ? 2 : 1);
			expect(run.jsonOf('Traffic Control', 0).filter((json) => json.error === undefined)).toEqual([expect.objectContaining({ api: key, paused: null })]);
		});

		it('Get State with a filter that finds nothing: no items, and a hint that lists the APIs kept', async () => {
			const store = new MemoryStateStore();
			const { label } = await pausedApi(store);
			const run = await runTrafficControl(store, { operation: 'getState', api: 'nowhere.example' });
			expect(run.jsonOf('Traffic Control')).toEqual([]);
			expect(run.taskOf('Traffic Control').hints).toEqual([expect.objectContaining({ message: expect.stringContaining(label), location: 'outputPane' })]);
		});

		const REDIS_URL = process.env.RH_TEST_REDIS_URL;
		(REDIS_URL ? describe : describe.skip)(`in Redis${REDIS_URL ? '' : ' (skipped: RH_TEST_REDIS_URL not set)'}`, () => {
			// the process-wide Redis clients reconnect in the background: close them, or Jest cannot exit
			afterAll(async () => closeRedisStateStores());

			it('an API Redis does not keep: the error says it looked in Redis', async () => {
				const url = new URL(REDIS_URL ?? 'redis://127.0.0.1:6379');
				const wf = trafficControlWorkflow({ operation: 'resume', stateStore: 'redis', api: 'nowhere.invalid' });
				wf.nodes[1].credentials = { resilientHttpRedis: { id: 'r', name: 'redis' } };
				const credential = { host: url.hostname, port: Number(url.port || 6379), database: 0, user: '', password: '', ssl: false };
				const run = await runWorkflow(wf, { nodeTypes: { [TRAFFIC_CONTROL]: new TrafficControl(systemRuntime, new MemoryStateStore()) }, credentialTypes: [new ResilientHttpRedis()], credentials: { resilientHttpRedis: credential } });
				// other runs share the server: it may keep their APIs, or none
				expect(run.error?.message).toMatch(/^Parameter "API" names no API kept in Redis: got "nowhere.invalid" \(item 0\)\. (The APIs kept in Redis: |No API's controller is kept in Redis)/);
			});
		});
	});
});
