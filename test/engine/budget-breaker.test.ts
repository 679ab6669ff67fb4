/**
 * The retry budget and the circuit breaker in n8n's engine: many executions of one workflow share
 * one budget; a breaker stops calling a host that is down. Virtual time throughout.
 */
import type { IDataObject } from 'n8n-workflow';
import { ResilientHttpRedis } from '../../credentials/ResilientHttpRedis.credentials';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { closeRedisStateStores } from '../../nodes/shared/state/redis-store';
import { startFlakyServer, type FlakyServer } from '../support/flaky-upstream';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

let upstream: FlakyServer;
beforeEach(async () => {
	upstream = await startFlakyServer();
});
afterEach(async () => upstream.close());

const errorOf = (json: IDataObject) => json.error as IDataObject;

describe('retry budget, shared by all executions of a workflow', () => {
	it('keeps a sustained outage within the bound, then lets retried items succeed after recovery', async () => {
		const store = new MemoryStateStore();
		// frozen: sleeps take no virtual time, so all executions fall into one budget window
		const runtime = createVirtualRuntime(7, { frozen: true });
		const workflow = { ...httpWorkflow({ url: `${upstream.url}/down`, maxAttempts: 5 }, { onError: 'continueErrorOutput' }), id: 'budget-wf' };
		const executions = 10;
		const itemsEach = 20;
		const runs = await Promise.all(
			Array.from({ length: executions }, (_, e) => runHttp(workflow, Array.from({ length: itemsEach }, (_, n) => ({ json: { e, n } })), runtime, { store })),
		);

		const firstAttempts = executions * itemsEach;
		// floor(10% of 200) + 40 retries at most: 1.3 x the traffic, not the 5 x of 5 attempts each
		expect(upstream.log.length).toBeLessThanOrEqual(firstAttempts + Math.floor(0.1 * firstAttempts) + 40);
		expect(upstream.log.length).toBeGreaterThan(firstAttempts);
		const failed = runs.flatMap((r) => r.jsonOf('HTTP', 1));
		expect(failed).toHaveLength(firstAttempts);
		const reasons = failed.map((f) => errorOf(f).reason);
		expect(reasons).toContain('retry-budget-exhausted');
		expect(reasons.every((r) => r === 'retry-budget-exhausted' || r === 'attempts-exhausted')).toBe(true);
		const refused = failed.find((f) => errorOf(f).reason === 'retry-budget-exhausted')!;
		expect(String(errorOf(refused).message)).toMatch(/Retry budget spent: \d+ retries for \d+ first attempts in the last 1 min/);
		// the story shows the budget's state when it decided
		const story = errorOf(refused)._retry as IDataObject;
		expect((story.history as IDataObject[])[0].budget).toMatchObject({ windowMs: 60_000 });

		// recovery: the window has passed; every item fails once, then the upstream answers
		runtime.advance(61_000);
		const recovered = await Promise.all(
			Array.from({ length: 3 }, (_, e) =>
				runHttp({ ...httpWorkflow({ url: `={{ "${upstream.url}/fail/1/rec-" + $json.e + "-" + $json.n }}` }, { onError: 'continueErrorOutput' }), id: 'budget-wf' }, Array.from({ length: 10 }, (_, n) => ({ json: { e, n } })), runtime, { store }),
			),
		);
		const succeeded = recovered.flatMap((r) => r.jsonOf('HTTP', 0));
		expect(succeeded).toHaveLength(30);
		expect(succeeded.every((s) => (s._retry as IDataObject).attempts === 2)).toBe(true);
	});

	it('a scope splits the budget: another workflow with its own budget is not starved', async () => {
		const store = new MemoryStateStore();
		const runtime = createVirtualRuntime(3, { frozen: true });
		const limits = { sharedLimits: { budgetMinRetries: 2, budgetPercent: 0 } };
		const a = { ...httpWorkflow({ url: `${upstream.url}/down`, maxAttempts: 3, ...limits }, { onError: 'continueErrorOutput' }), id: 'wf-a' };
		const b = { ...httpWorkflow({ url: `${upstream.url}/down`, maxAttempts: 3, ...limits }, { onError: 'continueErrorOutput' }), id: 'wf-b' };
		await runHttp(a, [{ json: {} }, { json: {} }, { json: {} }], runtime, { store });
		const runB = await runHttp(b, [{ json: {} }], runtime, { store });
		// workflow a spent its 2 retries; b has a budget of its own
		expect(((errorOf(runB.jsonOf('HTTP', 1)[0])._retry as IDataObject).attempts)).toBe(3);
	});

	it('can be switched off', async () => {
		const runtime = createVirtualRuntime(5, { frozen: true });
		const wf = httpWorkflow({ url: `${upstream.url}/down`, maxAttempts: 3, sharedLimits: { budget: false } }, { onError: 'continueErrorOutput' });
		await runHttp(wf, Array.from({ length: 50 }, () => ({ json: {} })), runtime);
		expect(upstream.log).toHaveLength(150);
	});
});

describe('circuit breaker per host', () => {
	it('opens after consecutive failures, fails fast without touching the network, probes after the break, closes on success', async () => {
		const store = new MemoryStateStore();
		const runtime = createVirtualRuntime();
		let healthy = false;
		const server = await startFlakyServer({ api: (_req, res, { json, entry }) => (healthy ? json(res, (entry.status = 200), { ok: true }) : json(res, (entry.status = 503), { down: true })) });
		try {
			const wf = httpWorkflow({ url: `${server.url}/api/x`, maxAttempts: 1, sharedLimits: { breaker: true, breakerConsecutiveFailures: 3, breakerBreak: 30_000 } }, { onError: 'continueErrorOutput' });
			// three items in one by one (Max Items in Flight 1 keeps their order)
			const first = await runHttp({ ...wf, nodes: wf.nodes.map((n) => (n.name === 'HTTP' ? { ...n, parameters: { ...n.parameters, options: { maxConcurrency: 1 } } } : n)) }, Array.from({ length: 5 }, (_, n) => ({ json: { n } })), runtime, { store });
			expect(server.log).toHaveLength(3);
			const failed = first.jsonOf('HTTP', 1);
			expect(failed.map((f) => errorOf(f).reason)).toEqual(['attempts-exhausted', 'attempts-exhausted', 'attempts-exhausted', 'circuit-open', 'circuit-open']);
			const open = errorOf(failed[3]);
			expect(String(open.message)).toMatch(/^Not sent: Circuit breaker open: the host 127\.0\.0\.1:\d+ failed too often; next probe in 30 s/);
			expect(open.code).toBe('ECIRCUITOPEN');
			expect(typeof open.retryAt).toBe('string');
			// the transition is in the story of the item that opened it
			expect(((errorOf(failed[2])._retry as IDataObject).history as IDataObject[])[0].breaker).toMatchObject({ state: 'open', changed: 'closed -> open' });

			// after the break one probe goes through; the host is back: closed again
			runtime.advance(31_000);
			healthy = true;
			const later = await runHttp(wf, [{ json: { n: 9 } }], runtime, { store });
			expect(later.jsonOf('HTTP', 0)).toHaveLength(1);
			expect(((later.jsonOf('HTTP', 0)[0]._retry as IDataObject).history as IDataObject[])[0].breaker).toMatchObject({ state: 'closed', changed: 'half-open -> closed' });
			expect(server.log).toHaveLength(4);
		} finally {
			await server.close();
		}
	});
});

describe('shared state in Redis (queue mode)', () => {
	// the process-wide Redis clients reconnect in the background: close them, or Jest cannot exit
	afterAll(async () => closeRedisStateStores());

	it('an unreachable Redis never fails a request: budgets fall back to this process', async () => {
		const runtime = createVirtualRuntime();
		const closed = await startFlakyServer();
		const port = closed.port;
		await closed.close();
		const wf = httpWorkflow({ url: `${upstream.url}/fail/1/redis-down`, stateStore: 'redis' }, { credentials: { resilientHttpRedis: { id: 'r', name: 'redis' } } });
		const run = await runHttp(wf, [{ json: {} }], runtime, { credentialTypes: [new ResilientHttpRedis()], credentials: { resilientHttpRedis: { host: '127.0.0.1', port, database: 0, user: '', password: '', ssl: false } } });
		expect(run.status).toBe('success');
		expect(run.jsonOf('HTTP')[0]._retry).toMatchObject({ attempts: 2, stoppedBecause: 'success' });
	});
});
