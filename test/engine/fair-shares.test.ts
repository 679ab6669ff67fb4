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

describe('bad values: an error that names the parameter and the item, before any request', () => {
	it.each([
		['a key that is an object', { fairShareKey: '={{ $json.tenant }}' }, { tenant: { id: 1 } }, 'Parameter "Fair Share Key" must be text or a number, got object (item 0)'],
		['a key of 1,001 characters', { fairShareKey: '={{ $json.tenant }}' }, { tenant: 'x'.repeat(1001) }, 'Parameter "Fair Share Key" must be at most 1000 characters, got 1001 (item 0)'],
		['urgent "soon"', { urgent: '={{ $json.urgent }}' }, { urgent: 'soon' }, 'Parameter "Urgent" must be true or false, got "soon" (item 0)'],
	])('%s', async (_, sharedLimits, json, message) => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const run = await runHttp(httpWorkflow({ url: `${api.url}/x`, sharedLimits }), [{ json }], runtime, { store: new MemoryStateStore() });
		expect(run.error?.message).toBe(message);
		expect(api.requests).toHaveLength(0);
	});
});
