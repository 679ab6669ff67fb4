/**
 * Fair Share Key and Urgent in n8n's engine, on the virtual clock, against a local server: the
 * order the API receives the requests in, the order the node returns its items in (unchanged), and
 * the errors of bad values. The turns themselves are the unit tests' (test/unit/traffic/fair-*.ts).
 */
import type { IDataObject } from 'n8n-workflow';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';
import { busiest } from '../support/busiest';

const server = useLocalServers();

/** The item numbers in the order the API received them (`?k=` of each request). */
function arrivalOrder(requests: Array<{ url: string }>): number[] {
	return requests.map((r) => Number(new URL(r.url, 'http://x').searchParams.get('k')));
}

/**
 * An execution of `first` at 20 a second, and 300 ms later (about 6 of them out, the rest waiting
 * their turn) one of `later` (items numbered from 100), with `sharedLimits`: the requests sent
 * before the later execution came, and where each of its items came among all (0-based).
 */
async function startsDuring(sharedLimits: IDataObject, first: IDataObject[], later: IDataObject[]): Promise<{ sentBefore: number; total: number; laterPlaces: number[] }> {
	const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
	const api = await server(() => ({ status: 200, body: { ok: true } }));
	const wf = httpWorkflow({ url: `=${api.url}/x?k={{ $json.k }}`, sharedLimits: { rateLimit: 20, ...sharedLimits } });
	const store = new MemoryStateStore();
	const firstRun = runHttp(wf, first.map((json) => ({ json })), runtime, { store });
	await runtime.sleep(300);
	const sentBefore = api.requests.length;
	await Promise.all([firstRun, runHttp(wf, later.map((json) => ({ json })), runtime, { store })]);
	const order = arrivalOrder(api.requests);
	return { sentBefore, total: order.length, laterPlaces: order.flatMap((k, place) => (k >= 100 ? [place] : [])) };
}

describe('Fair Share Key', () => {
	it('one execution, 40 items of one tenant listed before 5 of another, at 20 a second: the tenants take turns, and the items come out in their input order', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const wf = httpWorkflow({ url: `=${api.url}/x?k={{ $json.k }}`, sharedLimits: { rateLimit: 20, fairShareKey: '={{ $json.tenant }}' } });
		const input = Array.from({ length: 45 }, (_, k) => ({ json: { k, tenant: k < 40 ? 'big' : 'small' } }));
		const run = await runHttp(wf, input, runtime, { store: new MemoryStateStore() });
		expect(run.status).toBe('success');
		const order = arrivalOrder(api.requests);
		// big and small in turn while both have items: the small tenant is done by the 10th request
		expect(order.slice(0, 10)).toEqual([0, 40, 1, 41, 2, 42, 3, 43, 4, 44]);
		expect(order.slice(10)).toEqual(Array.from({ length: 35 }, (_, k) => k + 5));
		// what the node returns is in input order, as HTTP Request's
		expect(run.jsonOf('HTTP').every((j) => j.ok === true)).toBe(true);
		expect(run.outputOf('HTTP').map((item) => item.pairedItem)).toEqual(input.map((_, k) => ({ item: k })));
	});

	it('an execution with 3 items of a tenant starts while one with 30 of another waits at the pace: its 3 go within the next 6 requests', async () => {
		const big = Array.from({ length: 30 }, (_, k) => ({ k, tenant: 'big' }));
		const small = Array.from({ length: 3 }, (_, k) => ({ k: 100 + k, tenant: 'small' }));
		const { sentBefore, total, laterPlaces } = await startsDuring({ fairShareKey: '={{ $json.tenant }}' }, big, small);
		expect(total).toBe(33);
		expect(sentBefore).toBeGreaterThan(2);
		expect(Math.max(...laterPlaces)).toBeLessThan(sentBefore + 6);
	});
});

describe('Urgent', () => {
	it('urgent items of an execution that starts while another\'s bulk waits at the pace go next', async () => {
		const bulk = Array.from({ length: 30 }, (_, k) => ({ k, urgent: false }));
		const urgent = Array.from({ length: 2 }, (_, k) => ({ k: 100 + k, urgent: true }));
		const { sentBefore, laterPlaces } = await startsDuring({ urgent: '={{ $json.urgent === true }}' }, bulk, urgent);
		expect(sentBefore).toBeGreaterThan(2);
		// the next two requests are the urgent ones (one more of the bulk may be on its way as they arrive)
		expect(Math.max(...laterPlaces)).toBeLessThan(sentBefore + 3);
	});

	it('in one execution, the urgent items start first', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const wf = httpWorkflow({ url: `=${api.url}/x?k={{ $json.k }}`, sharedLimits: { rateLimit: 20, urgent: '={{ $json.k % 10 === 9 }}' } });
		await runHttp(wf, Array.from({ length: 30 }, (_, k) => ({ json: { k } })), runtime, { store: new MemoryStateStore() });
		expect(arrivalOrder(api.requests).slice(0, 3)).toEqual([9, 19, 29]);
	});
});

describe('a Fair Share Key\'s own limits', () => {
	/** Two executions at once on one store, each of 30 items (20 of tenant a, 10 of b): each tenant's requests' arrival times, and its most in flight at the server. */
	async function twoTenants(sharedLimits: IDataObject, latencyMs = 1): Promise<{ status: string[]; times: Record<string, number[]>; inFlight: Record<string, number> }> {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const open: Record<string, number> = {};
		const inFlight: Record<string, number> = {};
		const api = await server((req) => {
			const tenant = new URL(req.url, 'http://x').searchParams.get('t') ?? '';
			open[tenant] = (open[tenant] ?? 0) + 1;
			inFlight[tenant] = Math.max(inFlight[tenant] ?? 0, open[tenant]);
			// the answer leaves after `latencyMs` of real time (the socket open meanwhile)
			setTimeout(() => open[tenant]--, latencyMs);
			return { status: 200, body: { ok: true }, delayMs: latencyMs };
		}, runtime.now);
		const wf = httpWorkflow({ url: `=${api.url}/x?t={{ $json.tenant }}`, sharedLimits: { fairShareKey: '={{ $json.tenant }}', ...sharedLimits } });
		const store = new MemoryStateStore();
		const items = (tenant: string) => Array.from({ length: 30 }, (_, k) => ({ json: { k, tenant: k % 3 === 0 ? 'b' : tenant } }));
		const runs = await Promise.all([runHttp(wf, items('a'), runtime, { store }), runHttp(wf, items('a'), runtime, { store })]);
		const times: Record<string, number[]> = {};
		for (const r of api.requests) (times[new URL(r.url, 'http://x').searchParams.get('t') ?? ''] ??= []).push(r.receivedAt);
		return { status: runs.map((r) => r.status), times, inFlight };
	}

	it('Rate Limit Per Key 5 a second, two executions at once: no tenant gets more than 5 in any second, together they go faster', async () => {
		const { status, times } = await twoTenants({ keyRateLimit: 5 });
		expect(status).toEqual(['success', 'success']);
		expect(times.a).toHaveLength(40);
		expect(times.b).toHaveLength(20);
		expect(busiest(times.a, 1000)).toBeLessThanOrEqual(5);
		expect(busiest(times.b, 1000)).toBeLessThanOrEqual(5);
		// b's 20 at its own 5 a second, beside a's 40: about 4 s, not after a's 8 s
		expect(Math.max(...times.b) - Math.min(...times.b)).toBeLessThan(4_500);
	});

	it('Max Items in Flight Per Key 2, answers in 30 ms: never 3 of a tenant in flight', async () => {
		const { status, inFlight } = await twoTenants({ keyMaxInFlight: 2 }, 30);
		expect(status).toEqual(['success', 'success']);
		expect(inFlight).toEqual({ a: 2, b: 2 });
	});
});

describe('bad values: an error that names the parameter and the item, before any request', () => {
	it.each([
		['a key that is an object', { fairShareKey: '={{ $json.tenant }}' }, { tenant: { id: 1 } }, 'Parameter "Fair Share Key" must be text or a number, got object (item 0)'],
		['a key of 1,001 characters', { fairShareKey: '={{ $json.tenant }}' }, { tenant: 'x'.repeat(1001) }, 'Parameter "Fair Share Key" must be at most 1000 characters, got 1001 (item 0)'],
		['urgent "soon"', { urgent: '={{ $json.urgent }}' }, { urgent: 'soon' }, 'Parameter "Urgent" must be true or false, got "soon" (item 0)'],
		['Rate Limit Per Key without a Fair Share Key', { keyRateLimit: 5 }, {}, 'Parameter "Rate Limit Per Key" counts per Fair Share Key: add Fair Share Key to the options (the customer or tenant each limit is for), or set it to 0 (item 0)'],
		['Max Items in Flight Per Key without a Fair Share Key', { keyMaxInFlight: 2 }, {}, 'Parameter "Max Items in Flight Per Key" counts per Fair Share Key: add Fair Share Key to the options (the customer or tenant each limit is for), or set it to 0 (item 0)'],
		['Max Items in Flight Per Key 1.5', { fairShareKey: 'a', keyMaxInFlight: 1.5 }, {}, 'Parameter "Max Items in Flight Per Key" must be a whole number, got 1.5 (item 0)'],
		['Rate Limit Per Key -1', { fairShareKey: 'a', keyRateLimit: -1 }, {}, 'Parameter "Rate Limit Per Key" must be at least 0, got -1 (item 0)'],
	])('%s', async (_, sharedLimits, json, message) => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const run = await runHttp(httpWorkflow({ url: `${api.url}/x`, sharedLimits }), [{ json }], runtime, { store: new MemoryStateStore() });
		expect(run.error?.message).toBe(message);
		expect(api.requests).toHaveLength(0);
	});
});
