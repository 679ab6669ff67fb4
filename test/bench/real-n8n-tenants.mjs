/**
 * The tenants rows of the real-n8n part of `npm run bench` (issue 39): Fair Share Key and Urgent in
 * a real n8n (regular mode, SQLite), on real time. Each row calls an API origin of its own that
 * accepts `limitRps` requests a second (429 + Retry-After: 1 beyond, by epoch second: the upstream's
 * /limited route), and its node sets Rate Limit to the same figure. A webhook call's body says how
 * many items of which tenant it brings (a Code node makes them), so one call is one execution.
 *
 *   alone    a small tenant's `small` items, nothing else: its time alone
 *   fair     a big tenant's `big` items; `startGapMs` later, two small tenants' `small` items
 *            each (two calls): each small tenant's time from its call to its last request,
 *            Fair Share Key = the tenant
 *   fifo     the same without Fair Share Key: the small tenants wait behind the big one
 *   urgent   a bulk of `bulk` items; from `startGapMs` on, `urgentCalls` calls of one urgent item,
 *            one every `urgentEveryMs`: each urgent item's time from its call to its request,
 *            against the same calls with nothing else running (`urgentAlone`)
 *   keyed    Rate Limit Per Key `keyRps` with Fair Share Key = the tenant: `keyedBig` items of a big
 *            tenant and `small` of each of two small tenants, called at once: each tenant's busiest
 *            second on the API's clock, and each small tenant's time against its own pace's
 */
import { callWebhook, getExecution } from '../e2e/harness.mjs';
import { awaitExecutions, branchWorkflow, lastExecutionId, peakIn, RESILIENT_HTTP, webhookItemsNodes, webhookPath } from './real-n8n-lib.mjs';

/**
 * startGapMs: the small tenants (and the first urgent item) come once the bulk is under way. Sooner,
 * the bulk's execution is still starting (its Code node's 1,000 items on their way into the node),
 * and n8n itself started the small tenants' executions about 1 s later than alone, before any of
 * their items reached the node (their first items waited 50-150 ms at the controller).
 */
export const TENANTS = Object.freeze({ limitRps: 20, big: 1000, small: 20, startGapMs: 3000, bulk: 400, urgentCalls: 5, urgentEveryMs: 1000, keyRps: 5, keyedBig: 200 });

export const TENANT_ROWS = [
	{ slug: 'alone', name: `one small tenant alone (${TENANTS.small} items)`, lane: 'fair' },
	{ slug: 'fair', name: `Fair Share Key: ${TENANTS.big} items of one tenant, then ${TENANTS.small} of each of two others`, lane: 'fair' },
	{ slug: 'fifo', name: 'the same without Fair Share Key', lane: 'none' },
	{ slug: 'urgent-alone', name: `${TENANTS.urgentCalls} urgent items, nothing else`, lane: 'urgent' },
	{ slug: 'urgent', name: `Urgent: ${TENANTS.urgentCalls} urgent items during a bulk run of ${TENANTS.bulk}`, lane: 'urgent' },
	{ slug: 'keyed', name: `Rate Limit Per Key ${TENANTS.keyRps}/s: ${TENANTS.keyedBig} items of one tenant and ${TENANTS.small} of each of two others, at once`, lane: 'keyed' },
];

/** The Code node's items: `count` of `tenant`, each with its key (the upstream logs it) and whether it is urgent. */
const EXPAND = `const body = $input.first().json.body;
return Array.from({ length: body.count }, (_, k) => ({ json: { tenant: body.tenant, urgent: body.urgent === true, key: body.tenant + '-' + k } }));`;

function rowNodes(row) {
	const y = row.index * 200;
	const [webhook, items] = webhookItemsNodes(row, EXPAND);
	const fair = { fairShareKey: '={{ $json.tenant }}' };
	const lane = row.lane === 'fair' ? fair : row.lane === 'keyed' ? { ...fair, keyRateLimit: TENANTS.keyRps } : row.lane === 'urgent' ? { urgent: '={{ $json.urgent }}' } : {};
	const http = {
		id: `http-${row.slug}`,
		name: `HTTP ${row.slug}`,
		type: RESILIENT_HTTP,
		typeVersion: 1,
		position: [500, y],
		parameters: {
			url: `={{ "${row.url}/limited/" + $json.key + "?exec=" + $execution.id }}`,
			sharedLimits: { rateLimit: TENANTS.limitRps, ...lane },
			// each item's wait at the controller, in its story
			retryOptions: { retryStory: 'everyItem' },
		},
	};
	return { nodes: [webhook, items, http], links: [[webhook, items], [items, http]] };
}

/** One workflow with a branch per row; rows carry their server's url and the workflow's id. */
export const tenantsWorkflow = (workflowId, rows) => branchWorkflow(workflowId, 'Bench: tenants', rows, rowNodes);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Runs `calls` (each { atMs from the start, tenant, count, urgent }) of a row, awaits its executions,
 * and resolves { calls: [{ ...call, calledAt }], log (the upstream's requests), failed, executions }.
 */
async function runCalls(context, row, calls) {
	const { n8n, userFolder, upstream, client, say } = context;
	const afterId = await lastExecutionId(userFolder, row.workflowId);
	await upstream.take(row.url);
	const failed = [];
	const started = Date.now();
	const made = await Promise.all(
		calls.map(async (call) => {
			await sleep(started + call.atMs - Date.now());
			const calledAt = Date.now();
			await postItems(n8n, row, call, failed);
			return { ...call, calledAt };
		}),
	);
	const { rows, timedOut } = await awaitExecutions(userFolder, row.workflowId, afterId, calls.length - failed.length, { timeoutMs: 300_000, client, log: (m) => say(`  ${row.slug}: ${m}`) });
	const log = (await upstream.take(row.url)).sort((a, b) => a.time - b.time);
	return { calls: made, log, failed: failed.length, executions: rows.length, executionIds: rows.map((r) => r.id), succeeded: rows.filter((r) => r.status === 'success').length, timedOut };
}

/** POSTs { tenant, count, urgent } to the row's webhook. */
async function postItems(n8n, row, { tenant, count, urgent }, failed) {
	try {
		const res = await callWebhook(n8n, webhookPath(row.workflowId, row), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tenant, count, urgent: urgent === true }) });
		await res.arrayBuffer();
		if (res.status !== 200) failed.push(res.status);
	} catch (error) {
		failed.push(String(error?.message ?? error));
	}
}

/** The times `tenant`'s requests reached the API (the upstream's clock, ms). */
const tenantTimes = (run, tenant) => run.log.filter((e) => e.key.startsWith(`${tenant}-`)).map((e) => e.time);

/** When the last (or first) request of `tenant` reached the API, from its call (ms); null: none did. */
function tenantTime(run, tenant, pick = Math.max) {
	const call = run.calls.find((c) => c.tenant === tenant);
	const times = tenantTimes(run, tenant);
	return call && times.length ? pick(...times) - call.calledAt : null;
}

/** What every row says: requests, 429s, the most requests in any one second, executions. */
function head(row, run) {
	return {
		slug: row.slug,
		name: row.name,
		requests: run.log.length,
		status429: run.log.filter((e) => e.status === 429).length,
		busiestSecond: peakIn(run.log.map((e) => e.time), 1000),
		executions: run.executions,
		succeeded: run.succeeded,
		webhookCallsFailed: run.failed,
		timedOut: run.timedOut,
	};
}

async function sharesRow(context, row) {
	const { big, small, startGapMs } = TENANTS;
	const run = await runCalls(context, row, [
		{ atMs: 0, tenant: 'big', count: big },
		{ atMs: startGapMs, tenant: 'small1', count: small },
		{ atMs: startGapMs, tenant: 'small2', count: small },
	]);
	const smallFirstMs = [tenantTime(run, 'small1', Math.min), tenantTime(run, 'small2', Math.min)];
	// the first item of each small tenant: how long it waited at the controller
	const smallFirstWaitedMs = await storyWaits(context, row, run, (key) => key === 'small1-0' || key === 'small2-0');
	return { ...head(row, run), smallMs: [tenantTime(run, 'small1'), tenantTime(run, 'small2')], smallFirstMs, smallFirstWaitedMs, bigMs: tenantTime(run, 'big'), bigFirstMs: tenantTime(run, 'big', Math.min) };
}

/** Each urgent call's time from the call to its request reaching the API (ms; null: it never did). */
function urgentDelays(run) {
	return run.calls.filter((c) => c.urgent).map((c) => {
		const hit = run.log.find((e) => e.key === `${c.tenant}-0`);
		return hit ? hit.time - c.calledAt : null;
	});
}

/**
 * How long the items whose key `pick` accepts waited at the API's controller before their first
 * request (ms), from their stories (history[0].traffic: absent when it did not wait), by the
 * executions' stored run data; in the order of their keys.
 */
async function storyWaits(context, row, run, pick) {
	const waits = [];
	for (const id of run.executionIds) {
		const execution = await getExecution(context.client, id);
		const items = execution.data?.resultData?.runData?.[`HTTP ${row.slug}`]?.[0]?.data?.main?.[0] ?? [];
		for (const item of items) {
			const key = String(item.json?.key ?? '');
			if (pick(key)) waits.push([key, item.json._retry?.history?.[0]?.traffic?.waitedMs ?? 0]);
		}
	}
	return waits.sort((a, b) => a[0].localeCompare(b[0])).map(([, ms]) => ms);
}

async function urgentRow(context, row, withBulk) {
	const { bulk, startGapMs, urgentCalls, urgentEveryMs } = TENANTS;
	const urgent = Array.from({ length: urgentCalls }, (_, n) => ({ atMs: startGapMs + n * urgentEveryMs, tenant: `urgent${n}`, count: 1, urgent: true }));
	const run = await runCalls(context, row, withBulk ? [{ atMs: 0, tenant: 'bulk', count: bulk }, ...urgent] : urgent);
	return { ...head(row, run), urgentMs: urgentDelays(run), urgentWaitedMs: await storyWaits(context, row, run, (key) => key.startsWith('urgent')) };
}

/**
 * Three tenants at once under Rate Limit Per Key: each tenant's busiest second, as a sliding second
 * and as a sliding 980 ms (sends spaced exactly 1/rate apart may arrive a few ms closer together
 * over the network, so a sliding second can hold one more than the node sent within it).
 */
async function keyedRow(context, row) {
	const { keyedBig, small } = TENANTS;
	const tenants = ['big', 'small1', 'small2'];
	const run = await runCalls(context, row, [
		{ atMs: 0, tenant: 'big', count: keyedBig },
		{ atMs: 0, tenant: 'small1', count: small },
		{ atMs: 0, tenant: 'small2', count: small },
	]);
	return {
		...head(row, run),
		tenantBusiestSecond: tenants.map((t) => peakIn(tenantTimes(run, t), 1000)),
		tenantBusiest980Ms: tenants.map((t) => peakIn(tenantTimes(run, t), 980)),
		smallMs: [tenantTime(run, 'small1'), tenantTime(run, 'small2')],
		bigMs: tenantTime(run, 'big'),
	};
}

/** Every row in turn on one n8n; resolves the TenantsRun of test/bench/real-n8n-results.ts. */
export async function tenantsRows(context) {
	const byslug = Object.fromEntries(context.rows.map((r) => [r.slug, r]));
	const say = context.say;
	const alone = await runCalls(context, byslug.alone, [{ atMs: 0, tenant: 'small1', count: TENANTS.small }]);
	const aloneRow = { ...head(byslug.alone, alone), smallMs: [tenantTime(alone, 'small1')], smallFirstMs: [tenantTime(alone, 'small1', Math.min)] };
	say(`  alone: ${TENANTS.small} items in ${aloneRow.smallMs[0]} ms (the first after ${aloneRow.smallFirstMs[0]} ms)`);
	const fair = await sharesRow(context, byslug.fair);
	say(`  fair: small tenants ${fair.smallMs.join(' / ')} ms (the first after ${fair.smallFirstMs.join(' / ')} ms, of which ${fair.smallFirstWaitedMs.join(' / ')} ms at the controller), big ${fair.bigMs} ms (its first after ${fair.bigFirstMs} ms); ${fair.requests} requests, ${fair.status429} x 429, busiest second ${fair.busiestSecond}`);
	const fifo = await sharesRow(context, byslug.fifo);
	say(`  fifo: small tenants ${fifo.smallMs.join(' / ')} ms, big ${fifo.bigMs} ms; ${fifo.status429} x 429`);
	const urgentAlone = await urgentRow(context, byslug['urgent-alone'], false);
	const urgent = await urgentRow(context, byslug.urgent, true);
	say(`  urgent: waited ${urgent.urgentWaitedMs.join(', ')} ms at the controller; ${urgent.urgentMs.join(', ')} ms from call to request (alone ${urgentAlone.urgentMs.join(', ')} ms); ${urgent.status429} x 429, busiest second ${urgent.busiestSecond}`);
	const keyed = await keyedRow(context, byslug.keyed);
	say(`  keyed: busiest second per tenant ${keyed.tenantBusiestSecond.join(' / ')} (within 980 ms ${keyed.tenantBusiest980Ms.join(' / ')}); small tenants ${keyed.smallMs.join(' / ')} ms, big ${keyed.bigMs} ms; ${keyed.requests} requests, ${keyed.status429} x 429`);
	return { settings: { ...TENANTS }, alone: aloneRow, fair, fifo, urgentAlone, urgent, keyed };
}
