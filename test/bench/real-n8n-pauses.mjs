/**
 * The pauses rows of the real-n8n part of `npm run bench` (issue 22): what Resilient HTTP Request
 * at its defaults does in a real n8n when an API asks it to wait, and when it only looks limited.
 * One n8n (regular mode, SQLite), a webhook workflow per row (one item per call), real time; both
 * rows run side by side, each against an API origin of its own.
 *
 *   daily    HubSpot's daily-limit 429 (policyName DAILY: no Retry-After, no reset header) from
 *            the first call; the quota comes back `dailyBackMs` later. The node infers a pause to
 *            the day's end and probes it (one request a minute after it began, then at doubling
 *            intervals). A call every `dailyEveryMs` until `dailyCallsMs`: how long after the
 *            quota's return the API is used again, and how many requests went while it was spent.
 *   stated   429 + Retry-After: `statedS` to the first call; a call every `statedEveryMs` until
 *            `statedCallsMs`: no request may reach the API before the stated end, and every item
 *            succeeds after it.
 */
import { awaitExecutions, benchWorkflow, callBenchWebhook, lastExecutionId, webhookPath } from './real-n8n-lib.mjs';

export const PAUSES = Object.freeze({
	dailyBackMs: 20_000,
	dailyEveryMs: 10_000,
	dailyCallsMs: 180_000,
	statedS: 30,
	statedEveryMs: 3_000,
	statedCallsMs: 45_000,
});

export const PAUSE_ROWS = [
	{ slug: 'daily', name: "HubSpot's daily-limit 429 (no stated end), its quota back 20 s later", kind: 'resilient', route: 'throttled' },
	{ slug: 'stated', name: `429 + Retry-After: ${PAUSES.statedS} to the first call`, kind: 'resilient', route: 'throttled' },
];

/**
 * A workflow per row (Webhook -> Resilient HTTP Request at its defaults), so that each row's
 * executions are its own; rows carry their server's url and their workflow's id.
 */
export function pausesWorkflows(rows) {
	return rows.map((row) => benchWorkflow(row.workflowId, `Bench: pauses, ${row.slug}`, [row]));
}

/** One call every everyMs from now until callsMs (the first at once); resolves the calls' times and failures. */
async function callEvery(n8n, webhook, slug, everyMs, callsMs) {
	const started = Date.now();
	const calls = [];
	const failed = [];
	for (let n = 0; n * everyMs <= callsMs; n++) {
		const wait = started + n * everyMs - Date.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
		calls.push(Date.now());
		await callBenchWebhook(n8n, webhook, `${slug}-${n}`, failed);
	}
	return { calls, failed };
}

/** Executions that ended in success, and those that did not. */
function outcomes(rows) {
	return { succeeded: rows.filter((r) => r.status === 'success').length, failed: rows.filter((r) => r.status !== 'success').length };
}

/**
 * A row's run: its throttle armed, a call every everyMs for callsMs, its executions awaited; the
 * API's requests (by time), and the figures every row has.
 */
async function runRow({ n8n, userFolder, upstream, row, client, say }, throttle, everyMs, callsMs, timeoutMs) {
	const { workflowId } = row;
	const afterId = await lastExecutionId(userFolder, workflowId);
	await upstream.take(row.url);
	const armedAt = Date.now();
	const throttleEndsAt = await upstream.throttle(row.url, throttle);
	const { calls, failed } = await callEvery(n8n, webhookPath(workflowId, row), row.slug, everyMs, callsMs);
	const { rows, timedOut } = await awaitExecutions(userFolder, workflowId, afterId, calls.length - failed.length, { timeoutMs, client, log: (m) => say(`  ${row.slug}: ${m}`) });
	const log = (await upstream.take(row.url)).sort((a, b) => a.time - b.time);
	const base = {
		slug: row.slug,
		name: row.name,
		calls: calls.length,
		webhookCallsFailed: failed.length,
		...outcomes(rows),
		timedOut,
		requests: log.length,
		status429: log.filter((e) => e.status === 429).length,
	};
	return { armedAt, throttleEndsAt, calls, log, base };
}

async function dailyRow(context) {
	const { armedAt, throttleEndsAt: quotaBackAt, calls, log, base } = await runRow(context, { kind: 'daily', durationMs: PAUSES.dailyBackMs }, PAUSES.dailyEveryMs, PAUSES.dailyCallsMs, 400_000);
	const firstOk = log.find((e) => e.status === 200);
	const figures = {
		...base,
		/** Requests while the quota was spent (the first call's included). */
		sentWhileSpent: log.filter((e) => e.time < quotaBackAt).length,
		quotaBackAfterMs: quotaBackAt - armedAt,
		/** From the quota's return to the first request the API accepted (null: none did). */
		resumedAfterReturnMs: firstOk ? Math.max(0, firstOk.time - quotaBackAt) : null,
		/** Calls made while the API was not used yet (after the first, before the first 200): they waited for the probe. */
		callsBeforeResume: firstOk ? calls.filter((t, n) => n > 0 && t < firstOk.time).length : calls.length - 1,
		requestTimesMs: log.map((e) => ({ atMs: e.time - armedAt, status: e.status })),
	};
	context.say(`  daily: quota back after ${figures.quotaBackAfterMs} ms; first 200 ${figures.resumedAfterReturnMs} ms after that; ${figures.requests} requests (${figures.status429} x 429); executions ${figures.succeeded} succeeded, ${figures.failed} not`);
	return figures;
}

async function statedRow(context) {
	const { log, base } = await runRow(context, { kind: 'stated', retryAfterS: PAUSES.statedS }, PAUSES.statedEveryMs, PAUSES.statedCallsMs, 200_000);
	const first = log[0];
	const endsAt = first ? first.time + PAUSES.statedS * 1000 : NaN;
	const after = log.filter((e) => e.time >= endsAt);
	const figures = {
		...base,
		retryAfterS: PAUSES.statedS,
		/** Requests that reached the API before the stated end, the first (which got the 429) aside. */
		earlyRequests: log.filter((e) => e !== first && e.time < endsAt).length,
		/** From the stated end to the first request after it. */
		firstAfterEndMs: after.length ? after[0].time - endsAt : null,
		/** From the stated end to the last request of the calls made during the pause. */
		lastAfterEndMs: after.length ? after[after.length - 1].time - endsAt : null,
	};
	context.say(`  stated: ${figures.requests} requests (${figures.status429} x 429), ${figures.earlyRequests} before the stated end; first after it +${figures.firstAfterEndMs} ms; executions ${figures.succeeded} succeeded, ${figures.failed} not`);
	return figures;
}

/** Both rows side by side on one n8n; resolves { daily, stated } figures. */
export async function pausesRows(context) {
	const [daily, stated] = await Promise.all([dailyRow({ ...context, row: context.rows[0] }), statedRow({ ...context, row: context.rows[1] })]);
	return { settings: { ...PAUSES }, daily, stated };
}
