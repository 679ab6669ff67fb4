/**
 * The healthy rows of the real-n8n part of `npm run bench`: one n8n (regular mode, SQLite) runs one
 * execution of N items (a webhook's body split into items by Split Out) through n8n's HTTP Request
 * 4.2, Resilient HTTP Request at its defaults, or Resilient HTTP Request with Adapt Items in Flight
 * off, against an upstream that answers every request 200 after `latencyMs`. The three run in turn
 * in the same n8n process, rotating which goes first.
 *
 * Per execution: the request node's time as n8n measures it (its task's `executionTime` in the
 * stored run data), the whole execution's (stoppedAt - startedAt), and the n8n process's CPU
 * (user + system from /proc, from the webhook call to the execution stored as finished). A branch
 * without a request node (Webhook -> Split Out) runs in every round too: its CPU is what the
 * execution costs around the request node, taken off every side for the node's own CPU.
 *
 * First and later executions: each side's first execution of a round calls a new upstream server
 * (a new origin, so an API Resilient HTTP Request's controller has never seen: at its defaults its
 * window starts at 10 in flight), the later one the same server right after (the window the first
 * learned).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { callWebhook, FINISHED_STATUSES, parseFlatted } from '../e2e/harness.mjs';
import { RESILIENT_HTTP } from './real-n8n-lib.mjs';

/**
 * The branches of the healthy workflow: HTTP Request, Resilient HTTP Request at its defaults, the
 * same with Adapt Items in Flight off (every item in flight at once, as HTTP Request sends them: no
 * slow start against an API new to it), and the baseline without a request node.
 */
export const HEALTHY_SIDES = ['core', 'resilient', 'fixed', 'baseline'];
/** The sides with a request node, in the order of a round's first rotation. */
const REQUEST_SIDES = HEALTHY_SIDES.filter((side) => side !== 'baseline');

const nodeNameOf = (side) => `HTTP ${side}`;
export const healthyWebhookPath = (workflowId, side) => `bench-${workflowId}-healthy-${side}`.toLowerCase();

/** Webhook -> Split Out (body.items: one item per { url }) -> the side's request node. */
export function healthyWorkflow(id) {
	const nodes = [];
	const connections = {};
	for (const [index, side] of HEALTHY_SIDES.entries()) {
		const y = index * 200;
		const webhook = {
			id: `webhook-${side}`,
			name: `Webhook ${side}`,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, y],
			webhookId: `${id}-healthy-${side}`,
			parameters: { httpMethod: 'POST', path: healthyWebhookPath(id, side), responseMode: 'onReceived', options: {} },
		};
		const split = { id: `split-${side}`, name: `Split ${side}`, type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, y], parameters: { fieldToSplitOut: 'body.items', options: {} } };
		nodes.push(webhook, split);
		connections[webhook.name] = { main: [[{ node: split.name, type: 'main', index: 0 }]] };
		if (side === 'baseline') continue;
		const base = { id: `http-${side}`, name: nodeNameOf(side), position: [400, y] };
		const parameters = { core: { method: 'GET', url: '={{ $json.url }}', options: {} }, resilient: { url: '={{ $json.url }}' }, fixed: { url: '={{ $json.url }}', options: { adaptConcurrency: false } } }[side];
		nodes.push(side === 'core' ? { ...base, type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters } : { ...base, type: RESILIENT_HTTP, typeVersion: 1, parameters });
		connections[split.name] = { main: [[{ node: base.name, type: 'main', index: 0 }]] };
	}
	return { id, name: 'Bench: healthy API', active: false, settings: { executionOrder: 'v1' }, pinData: {}, nodes, connections };
}

/** CPU time of a process so far (user + system, ms), from /proc (Linux). */
export function processCpuMs(pid) {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	// fields after the command name (which may hold spaces, in parentheses): utime and stime are 14 and 15
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

/**
 * The machine's TCP counters that say connections were not taken at once (Linux, since boot):
 * handshakes a full listen queue dropped, and SYNs sent again. Per execution, as deltas: the
 * benchmark runs alone, so they are the execution's (and the upstream's).
 */
export function tcpCounters() {
	const lines = fs.readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
	const [names, values] = lines.map((line) => line.split(' ').slice(1));
	const of = (name) => Number(values[names.indexOf(name)] ?? 0);
	return { listenDrops: of('ListenDrops'), synRetrans: of('TCPSynRetrans') };
}
const execFileAsync = promisify(execFile);

/**
 * Rows of a query on the user folder's SQLite database, read by the sqlite3 command-line tool: n8n's
 * own sqlite3 module is built for n8n's Node 24 and crashes this process's Node 20.
 */
async function query(userFolder, sql) {
	const { stdout } = await execFileAsync('sqlite3', ['-readonly', '-json', '-cmd', '.timeout 5000', path.join(userFolder, '.n8n', 'database.sqlite'), sql], { maxBuffer: 512 * 1024 * 1024 });
	return stdout.trim() === '' ? [] : JSON.parse(stdout);
}

const epoch = (value) => (value === null || value === undefined ? null : Date.parse(/[zZ+]/.test(value) ? value : `${value.replace(' ', 'T')}Z`));

/** The executions of the workflow after `afterId`: [{ id, status, startedAt, stoppedAt }], oldest first. */
async function executionsAfter(userFolder, workflowId, afterId) {
	const rows = await query(userFolder, `SELECT id, status, startedAt, stoppedAt FROM execution_entity WHERE workflowId = '${workflowId}' AND id > ${Number(afterId)} ORDER BY id`);
	return rows.map((r) => ({ id: Number(r.id), status: r.status, startedAt: epoch(r.startedAt), stoppedAt: epoch(r.stoppedAt) }));
}

/** The stored run data of one execution, parsed. */
async function runDataOf(userFolder, executionId) {
	const [row] = await query(userFolder, `SELECT data FROM execution_data WHERE executionId = ${Number(executionId)}`);
	if (!row) throw new Error(`execution ${executionId} has no stored data`);
	return parseFlatted(row.data).resultData.runData;
}

/** Waits (polling the database, not n8n) for the first execution after `afterId` to finish. */
async function awaitFinished(userFolder, workflowId, afterId, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const done = (await executionsAfter(userFolder, workflowId, afterId)).find((r) => r.stoppedAt !== null && FINISHED_STATUSES.includes(r.status));
		if (done) return done;
		if (Date.now() > deadline) throw new Error(`no execution of ${workflowId} after ${afterId} finished within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/**
 * One execution of `side` with `count` items against `serverUrl`: { nodeMs, executionMs, cpuMs }.
 * Throws unless it succeeded and the upstream got exactly one request per item.
 */
async function measureOnce({ n8n, userFolder, workflowId, upstream, side, serverUrl, count, tag, latencyMs, timeoutMs }) {
	const before = await query(userFolder, `SELECT MAX(id) AS id FROM execution_entity WHERE workflowId = '${workflowId}'`);
	const afterId = Number(before[0]?.id ?? 0);
	await upstream.take(serverUrl);
	const body = JSON.stringify({ items: Array.from({ length: count }, (_, n) => ({ url: `${serverUrl}/slow/${latencyMs}/${tag}-${n}` })) });
	const cpuBefore = processCpuMs(n8n.pid);
	const tcpBefore = tcpCounters();
	const res = await callWebhook(n8n, healthyWebhookPath(workflowId, side), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
	await res.arrayBuffer();
	if (res.status !== 200) throw new Error(`healthy ${side} ${tag}: the webhook answered ${res.status}`);
	const execution = await awaitFinished(userFolder, workflowId, afterId, timeoutMs);
	const cpuMs = processCpuMs(n8n.pid) - cpuBefore;
	const tcpAfter = tcpCounters();
	const tcp = { listenDrops: tcpAfter.listenDrops - tcpBefore.listenDrops, synRetrans: tcpAfter.synRetrans - tcpBefore.synRetrans };
	if (execution.status !== 'success') throw new Error(`healthy ${side} ${tag}: execution ${execution.id} ended ${execution.status}`);
	const runData = await runDataOf(userFolder, execution.id);
	const sample = { executionMs: execution.stoppedAt - execution.startedAt, cpuMs, tcp };
	if (side === 'baseline') return sample;
	const task = runData[nodeNameOf(side)]?.[0];
	const out = task?.data?.main?.[0]?.length ?? 0;
	const sent = (await upstream.take(serverUrl)).length;
	if (out !== count || sent !== count) throw new Error(`healthy ${side} ${tag}: ${out} items out and ${sent} requests for ${count} items`);
	return { ...sample, nodeMs: task.executionTime };
}

/**
 * Rounds of every side at each size, after one untimed round (loads the nodes, warms the JIT):
 * { latencyMs, runs, sizes: [{ items, samples: { core: { first, later }, resilient: { first, later }, fixed: { first, later }, baseline } }] }.
 * A round runs the request sides in turn (which goes first rotates), then the baseline.
 */
export async function healthyRounds({ n8n, userFolder, workflowId, upstream, sizes, runs, latencyMs, timeoutMs, say }) {
	const once = (side, serverUrl, count, tag) => measureOnce({ n8n, userFolder, workflowId, upstream, side, serverUrl, count, tag, latencyMs, timeoutMs });
	const out = [];
	for (const count of sizes) {
		const samples = { core: { first: [], later: [] }, resilient: { first: [], later: [] }, fixed: { first: [], later: [] }, baseline: [] };
		for (let run = -1; run < runs; run++) {
			// which side goes first rotates from round to round
			const shift = (((run + 1) % REQUEST_SIDES.length) + REQUEST_SIDES.length) % REQUEST_SIDES.length;
			const order = [...REQUEST_SIDES.slice(shift), ...REQUEST_SIDES.slice(0, shift)];
			for (const side of order) {
				// a new origin: an API the node has never seen
				const serverUrl = await upstream.server();
				const first = await once(side, serverUrl, count, `${side}-${count}-${run}-first`);
				const later = await once(side, serverUrl, count, `${side}-${count}-${run}-later`);
				if (run < 0) continue;
				samples[side].first.push(first);
				samples[side].later.push(later);
			}
			const baseline = await once('baseline', await upstream.server(), count, `baseline-${count}-${run}`);
			if (run >= 0) samples.baseline.push(baseline);
			if (run >= 0) {
				const show = (s) => `${Math.round(s.nodeMs)} ms / CPU ${Math.round(s.cpuMs)} ms / ${s.tcp.listenDrops} dropped, ${s.tcp.synRetrans} SYN again`;
				say(`  healthy ${count} items, round ${run + 1}/${runs}: core ${show(samples.core.first.at(-1))}, later ${show(samples.core.later.at(-1))}; resilient ${show(samples.resilient.first.at(-1))}, later ${show(samples.resilient.later.at(-1))}; fixed ${show(samples.fixed.first.at(-1))}, later ${show(samples.fixed.later.at(-1))}; baseline CPU ${Math.round(baseline.cpuMs)} ms`);
			}
		}
		out.push({ items: count, samples });
	}
	return { latencyMs, runs, sizes: out };
}
