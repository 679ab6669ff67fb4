/**
 * `npm run bench`: Retry On Fail (n8n's HTTP Request) against Resilient HTTP Request, side by side
 * in one run, in n8n's engine, against the same local upstream. Writes BENCHMARKS.md.
 * Figures are ratios and counts; absolute times vary with the machine.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { INode } from 'n8n-workflow';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { startFlakyServer, type FlakyServer } from '../support/flaky-upstream';
import { runWorkflow, type WorkflowJson } from '../engine/harness';
import { createVirtualRuntime, seededRandom } from '../engine/virtual-runtime';
import { itemsSource, ITEMS_SOURCE, RESILIENT_HTTP } from '../engine/workflow-builders';

const ITEMS = 100;

function workflow(http: INode): WorkflowJson {
	return {
		id: 'bench',
		nodes: [
			{ id: 's', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'i', name: 'Items', type: ITEMS_SOURCE, typeVersion: 1, position: [100, 0], parameters: {} },
			http,
		],
		connections: { Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] }, Items: { main: [[{ node: 'HTTP', type: 'main', index: 0 }]] } },
	};
}

// Retry On Fail only acts when the node fails: with "continue on fail" it never retries. So the
// node stops the workflow on error, as Retry On Fail users have it.
const core = (url: string, retryOnFail: boolean): INode => ({
	id: 'h', name: 'HTTP', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [200, 0],
	parameters: { url, options: {} },
	...(retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {}),
});
const resilient = (url: string, maxConcurrency?: number): INode => ({
	id: 'h', name: 'HTTP', type: RESILIENT_HTTP, typeVersion: 1, position: [200, 0], onError: 'continueRegularOutput',
	parameters: { url, ...(maxConcurrency ? { options: { maxConcurrency } } : {}) },
});

interface Outcome {
	requests: number;
	succeeded: number;
	failed: number;
	/** Requests for items that had already succeeded: re-sends nobody asked for. */
	resentAfterSuccess: number;
	ms: number;
}

async function measure(upstream: FlakyServer, http: INode): Promise<Outcome> {
	const before = upstream.log.length;
	const started = performance.now();
	const run = await runWorkflow(workflow(http), {
		nodeTypes: { [RESILIENT_HTTP]: new ResilientHttpRequest(createVirtualRuntime(1, { frozen: true }), new MemoryStateStore()), [ITEMS_SOURCE]: itemsSource(Array.from({ length: ITEMS }, (_, n) => ({ json: { n } }))) },
	});
	const ms = performance.now() - started;
	const log = upstream.log.slice(before);
	// a failed node (Retry On Fail exhausted) loses every item of the run
	const out = run.status === 'error' ? [] : run.outputOf('HTTP');
	const failed = run.status === 'error' ? ITEMS : out.filter((o) => o.json.error !== undefined).length;
	// an item path is /flaky/<n>; count requests made after that item's first 200
	const firstSuccess = new Map<string, number>();
	let resent = 0;
	log.forEach((e, index) => {
		if (firstSuccess.has(e.path)) resent++;
		else if (e.status === 200) firstSuccess.set(e.path, index);
	});
	return { requests: log.length, succeeded: Math.max(0, out.length - failed), failed, resentAfterSuccess: resent, ms };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

it('retry strategies side by side', async () => {
	const random = seededRandom(2026);
	// flaky: 30% of requests fail with 503, decided by a seeded random source (same sequence for both)
	const upstream = await startFlakyServer({
		flaky: (_req, res, { entry, json }) => json(res, (entry.status = random() < 0.3 ? 503 : 200), { ok: true }),
		ok: (_req, res, { entry, json }) => json(res, (entry.status = 200), { ok: true }),
	});
	try {
		const url = (scenario: string) => `={{ "${upstream.url}/${scenario}/" + $json.n }}`;
		const rows: string[] = [];
		const add = (name: string, a: Outcome, b: Outcome) =>
			rows.push(
				`| ${name} | ${a.requests} | ${b.requests} | ${(b.requests / a.requests).toFixed(2)} | ${a.failed} / ${b.failed} | ${a.resentAfterSuccess} / ${b.resentAfterSuccess} |`,
			);

		const flakyCore = await measure(upstream, core(url('flaky'), true));
		const flakyOurs = await measure(upstream, resilient(url('flaky')));
		add(`${ITEMS} items, 30% of requests fail (503)`, flakyCore, flakyOurs);
		const downCore = await measure(upstream, core(url('down'), true));
		const downOurs = await measure(upstream, resilient(url('down')));
		add(`${ITEMS} items, upstream down (503)`, downCore, downOurs);

		// overhead on a healthy upstream: 5 runs each, interleaved, median wall time
		const coreTimes: number[] = [];
		const ourTimes: number[] = [];
		const ourUnlimitedTimes: number[] = [];
		for (let r = 0; r < 5; r++) {
			coreTimes.push((await measure(upstream, core(url('ok'), false))).ms);
			ourTimes.push((await measure(upstream, resilient(url('ok')))).ms);
			ourUnlimitedTimes.push((await measure(upstream, resilient(url('ok'), ITEMS))).ms);
		}
		const overhead = median(ourTimes) / median(coreTimes);
		const overheadUnlimited = median(ourUnlimitedTimes) / median(coreTimes);

		const report = `# Benchmarks

Written by \`npm run bench\` (test/bench/retry-strategies.bench.ts) on ${new Date().toISOString().slice(0, 10)}.
Both sides run in one process, in n8n's engine (n8n-core ${require('n8n-core/package.json').version}), against the same
local upstream; the failure sequence comes from one seeded random source. Figures are counts and
ratios: absolute times depend on the machine.

## Requests sent and items lost: Retry On Fail vs Resilient HTTP Request

*Retry On Fail*: n8n's HTTP Request 4.2, Retry On Fail with 3 tries (its default). *Resilient*:
this package's node with its defaults (5 attempts, full jitter, retry budget). Waits are not part
of this table: Retry On Fail is set to no wait, and ours runs on a virtual clock that stands still,
so all its retries fall into one budget window (the worst case for the budget).

| Scenario | Requests: Retry On Fail | Requests: Resilient | Ratio | Items failed (RoF / ours) | Re-sent after success (RoF / ours) |
|---|---|---|---|---|---|
${rows.join('\n')}

- Retry On Fail re-runs the whole node: every item is sent again, including those that had
  already succeeded ("re-sent after success": a payment charged again), and when one item still
  fails on the last try the node fails and no item comes out. With 30% of requests failing, some
  item fails on every try, so all three tries fail.
- Resilient HTTP Request retries each item on its own: nothing is sent again after a success; in an
  outage the retry budget holds the traffic to about 1.5x the first attempts (100 items: at most
  100 + 10 + 40 requests) where Retry On Fail sends 3x.

## Overhead on a healthy upstream

${ITEMS} items, one GET each, no failures; median of 5 interleaved runs per side.

| | Median wall time, ratio to HTTP Request |
|---|---|
| HTTP Request 4.2 | 1.00 |
| Resilient HTTP Request (defaults: at most 10 items in flight) | ${overhead.toFixed(2)} |
| Resilient HTTP Request, Max Items in Flight ${ITEMS} (all at once, like HTTP Request) | ${overheadUnlimited.toFixed(2)} |

HTTP Request sends all items at once; Resilient HTTP Request limits the items in flight by default,
which is what a struggling API needs, and costs time only against a fast, healthy one.
`;
		writeFileSync(path.join(__dirname, '../../BENCHMARKS.md'), report);
		console.log(report);
		expect(downOurs.requests).toBeLessThan(downCore.requests);
		expect(flakyOurs.resentAfterSuccess).toBe(0);
	} finally {
		await upstream.close();
	}
});
