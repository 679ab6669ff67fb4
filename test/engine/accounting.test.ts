/**
 * Nothing lost, nothing doubled: many items under a seeded random mix of faults, successes and
 * 4xx/5xx, GET and POST with and without an idempotency key, through n8n's engine in one
 * execution. Every input item comes out exactly once, on the success output (the server echoes
 * what it received) or on the error output (its original json plus `error`); each item's attempts
 * and the requests the server saw match a model of the node's rules; no POST without a key is
 * received twice.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { RetryStory } from '../../nodes/shared/core/retry-story';
import { refusedUrl, startFaultServer, startTlsResetServer, type CountingEndpoint, type FaultServer } from '../support/fault-server';
import { ACCOUNTING_RUN } from '../support/fault-server.runs';
import { mulberry32 } from '../unit/fake-runtime';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const MAX_REDIRECTS = 3;

/** A fault as the model sees it: does it fail the attempt, is that transient, could the server have acted. */
interface FaultModel {
	name: string;
	/** As the docs table names it. */
	label: string;
	weight: number;
	/** Where it is served: the fault server, a refused port, or a TLS endpoint that closes the handshake. */
	target: 'faults' | 'refused' | 'tls';
	path?: string;
	query?: string;
	transient: boolean;
	reached: 'no' | 'maybe' | 'yes' | 'refused';
	/** Requests the fault server logs per attempt. */
	requestsPerAttempt: number;
	/** Possible `times` (faulty attempts before a success); Infinity: always. */
	times: number[];
}

const FAULT_MIX: FaultModel[] = [
	{ name: 'ok', label: '200', weight: 30, target: 'faults', path: 'ok', transient: false, reached: 'yes', requestsPerAttempt: 1, times: [0] },
	{ name: '503', label: '503', weight: 12, target: 'faults', path: 'status', query: 'status=503', transient: true, reached: 'yes', requestsPerAttempt: 1, times: [1, 2, Infinity] },
	{ name: '429', label: '429', weight: 6, target: 'faults', path: 'status', query: 'status=429', transient: true, reached: 'refused', requestsPerAttempt: 1, times: [1, Infinity] },
	{ name: '404', label: '404', weight: 6, target: 'faults', path: 'status', query: 'status=404', transient: false, reached: 'yes', requestsPerAttempt: 1, times: [Infinity] },
	{ name: 'reset-before', label: 'reset before the response', weight: 8, target: 'faults', path: 'reset-before', transient: true, reached: 'maybe', requestsPerAttempt: 1, times: [1, 2, Infinity] },
	{ name: 'reset-after-body', label: 'reset after the body', weight: 8, target: 'faults', path: 'reset-after-body', transient: true, reached: 'maybe', requestsPerAttempt: 1, times: [1, 2, Infinity] },
	{ name: 'cut-body', label: 'body cut', weight: 8, target: 'faults', path: 'cut-body', transient: true, reached: 'maybe', requestsPerAttempt: 1, times: [1, Infinity] },
	{ name: 'hang', label: 'no answer', weight: 2, target: 'faults', path: 'hang', transient: true, reached: 'maybe', requestsPerAttempt: 1, times: [1] },
	{ name: 'drip', label: 'drip', weight: 2, target: 'faults', path: 'drip', transient: true, reached: 'maybe', requestsPerAttempt: 1, times: [1] },
	{ name: 'redirect-loop', label: 'redirect loop', weight: 3, target: 'faults', path: 'redirect-loop', transient: false, reached: 'yes', requestsPerAttempt: MAX_REDIRECTS + 1, times: [Infinity] },
	{ name: 'refused', label: 'connection refused', weight: 5, target: 'refused', transient: true, reached: 'no', requestsPerAttempt: 0, times: [Infinity] },
	{ name: 'tls-closed', label: 'TLS handshake closed', weight: 5, target: 'tls', transient: true, reached: 'no', requestsPerAttempt: 0, times: [Infinity] },
];

type Method = 'GET' | 'POST';

interface Expected {
	endsOn: 'success' | 'error';
	attempts: number;
	requests: number;
}

/** The node's rules, restated: retry a transient failure when it is safe, up to Max Attempts. */
function expectedOutcome(fault: FaultModel, times: number, method: Method, withKey: boolean, maxAttempts: number): Expected {
	for (let attempt = 1; ; attempt++) {
		const requests = attempt * fault.requestsPerAttempt;
		if (attempt > times) return { endsOn: 'success', attempts: attempt, requests };
		const safe = fault.reached === 'no' || fault.reached === 'refused' || method === 'GET' || withKey;
		if (!fault.transient || !safe || attempt === maxAttempts) return { endsOn: 'error', attempts: attempt, requests };
	}
}

interface Planned {
	json: IDataObject;
	fault: FaultModel;
	expected: Expected;
}

function pick<T>(random: () => number, values: readonly T[]): T {
	return values[Math.floor(random() * values.length)];
}

function plan(seed: number, urls: { faults: string; refused: string; tls: string }): Planned[] {
	const random = mulberry32(seed);
	const totalWeight = FAULT_MIX.reduce((sum, f) => sum + f.weight, 0);
	return Array.from({ length: ACCOUNTING_RUN.items }, (_, i) => {
		let roll = random() * totalWeight;
		const fault = FAULT_MIX.find((f) => (roll -= f.weight) < 0) ?? FAULT_MIX[0];
		const times = pick(random, fault.times);
		const kind = pick(random, ['GET', 'POST', 'POST+key'] as const);
		const method: Method = kind === 'GET' ? 'GET' : 'POST';
		const withKey = kind === 'POST+key';
		const id = `s${seed}-i${i}`;
		const query = [...(Number.isFinite(times) ? [`times=${times}`] : []), ...(fault.query ? [fault.query] : [])].join('&');
		const url =
			fault.target === 'faults' ? `${urls.faults}/${fault.path}/${id}?${query}` : fault.target === 'refused' ? `${urls.refused}/${id}?x=1` : `${urls.tls}/${id}?x=1`;
		const json: IDataObject = { id, method, withKey, url, order: { amount: Math.round(random() * 10_000) / 100, tags: [fault.name, kind] } };
		return { json, fault, expected: expectedOutcome(fault, times, method, withKey, ACCOUNTING_RUN.maxAttempts) };
	});
}

const workflow = httpWorkflow(
	{
		method: '={{ $json.method }}',
		// a GET carries the item in its query, for the server to echo it back
		url: '={{ $json.url + ($json.method === "GET" ? "&item=" + encodeURIComponent(JSON.stringify($json)) : "") }}',
		maxAttempts: ACCOUNTING_RUN.maxAttempts,
		// the mode cannot be an expression (noDataExpression): a key set as a plain header counts just the same
		sendHeaders: true,
		specifyHeaders: 'json',
		jsonHeaders: '={{ JSON.stringify($json.withKey ? { "Idempotency-Key": "key-" + $json.id } : {}) }}',
		// a constant: n8n drops parameters whose display conditions an expression would decide (a GET sends the body too)
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify($json) }}',
		retryOptions: { baseDelay: 100, maxDelay: 1000, attemptTimeout: 1000 },
		// the model is per item: no budget, and no hold (with the mix's failures the fault server would
		// look down, and its items would wait for probes instead of retrying on their own)
		sharedLimits: { budget: false, breaker: false },
		options: { maxConcurrency: 20, redirect: { redirect: { maxRedirects: MAX_REDIRECTS } } },
	},
	{ onError: 'continueErrorOutput' },
);

const storyOf = (json: IDataObject): RetryStory => (json._retry ?? (json.error as IDataObject)._retry) as unknown as RetryStory;

describe(`accounting: ${ACCOUNTING_RUN.items} items under a seeded random mix of faults`, () => {
	let faults: FaultServer;
	let tls: CountingEndpoint;
	let refused: string;
	beforeEach(async () => {
		faults = await startFaultServer();
		tls = await startTlsResetServer('close');
		refused = await refusedUrl();
	});
	afterEach(async () => {
		await Promise.all([faults.close(), tls.close()]);
	});

	it.each(ACCOUNTING_RUN.seeds.map((seed) => [seed]))('seed %i: every item exactly once, with its data; no POST without a key twice', async (seed) => {
		const planned = plan(seed, { faults: faults.url, refused, tls: tls.url });
		const input: INodeExecutionData[] = planned.map((p) => ({ json: p.json }));
		const run = await runHttp(workflow, input, createVirtualRuntime(seed));

		expect(run.status).toBe('success');
		const ok = run.outputOf('HTTP', 0);
		const failed = run.outputOf('HTTP', 1);

		// exactly once: every input index appears once over both outputs, and nothing else does
		const seen = [...ok, ...failed].map((item) => (item.pairedItem as { item: number }).item).sort((a, b) => a - b);
		expect(seen).toEqual(planned.map((_, i) => i));

		const mismatches: string[] = [];
		for (const item of ok) {
			const p = planned[(item.pairedItem as { item: number }).item];
			// the server echoes what it received: the item's data, whole
			expect(item.json.echo).toEqual(p.json);
			expect(item.json.key).toBe(p.json.id);
			if (p.expected.endsOn !== 'success' || storyOf(item.json).attempts !== p.expected.attempts) mismatches.push(`${p.json.id} ${p.fault.name}: success after ${storyOf(item.json).attempts}, expected ${JSON.stringify(p.expected)}`);
		}
		for (const item of failed) {
			const p = planned[(item.pairedItem as { item: number }).item];
			const { error, ...original } = item.json;
			expect(original).toEqual(p.json);
			expect(error).toEqual(expect.objectContaining({ reason: expect.any(String), message: expect.any(String) }));
			if (p.expected.endsOn !== 'error' || storyOf(item.json).attempts !== p.expected.attempts) mismatches.push(`${p.json.id} ${p.fault.name}: error after ${storyOf(item.json).attempts}, expected ${JSON.stringify(p.expected)}`);
		}
		expect(mismatches).toEqual([]);

		// what the server saw, item by item
		for (const p of planned) {
			const requests = faults.requestsOf(String(p.json.id));
			expect([p.json.id, requests.length]).toEqual([p.json.id, p.expected.requests]);
			if (p.json.method === 'POST' && !p.json.withKey) {
				// at most one POST the server may have acted on; a 429 refused it before any work (docs/retries.md:
				// a 429 is safe to retry for any method), and a redirect's next hops are GETs
				const actedOn = requests.filter((r) => r.method === 'POST' && r.status !== 429);
				expect([p.json.id, actedOn.length <= 1]).toEqual([p.json.id, true]);
			}
			for (const r of requests) expect(r.headers['idempotency-key']).toBe(p.json.withKey ? `key-${p.json.id}` : undefined);
		}
		const tlsHandshakes = planned.filter((p) => p.fault.target === 'tls').reduce((sum, p) => sum + p.expected.attempts, 0);
		expect(tls.connections()).toBe(tlsHandshakes);

		// the mix really mixed: both outputs, every fault, both methods, with and without keys
		expect(ok.length).toBeGreaterThan(0);
		expect(failed.length).toBeGreaterThan(0);
		expect(new Set(planned.map((p) => p.fault.name)).size).toBe(FAULT_MIX.length);
		expect(FAULT_MIX.map((f) => f.label)).toEqual(ACCOUNTING_RUN.mix);
		expect(new Set(planned.map((p) => `${p.json.method}${p.json.withKey}`)).size).toBe(3);
	});
});
