/**
 * The LLM rows of the real-n8n part of `npm run bench` (issue 36): token budgets in a real n8n
 * (regular mode, SQLite), on real time, against local OpenAI-compatible APIs
 * (test/bench/llm-upstream.mjs: 60,000 tokens and 500 requests in any sliding minute, prompt +
 * max_tokens counted on arrival, OpenAI's headers and 429 bodies).
 *
 *   quota      one execution of 1 + `quotaOthers` items to one API: the first item's model answers
 *              OpenAI's `insufficient_quota` 429, the others succeed. Resilient HTTP Request at its
 *              defaults, error output on: the quota item's requests (1 expected: no retry), its
 *              error, and whether the other items waited for a pause at the API's controller.
 *   resilient  one execution of `items` chat requests of `minTokens` to `maxTokens` tokens each
 *              (seeded), Resilient HTTP Request at its defaults (no Token Limit: it learns the
 *              budget from the headers), error output on
 *   core       the same items at once, n8n's HTTP Request 4.2 with Retry On Fail at its maximum
 *              (5 tries, 5,000 ms), error output on
 *   openai-guarded  the same items through n8n's own OpenAI node (Message a Model: the Responses
 *              API, its credential's Base URL at the row's API), in Loop Over Items of 1 behind
 *              Traffic Control's Wait for Room (Token Limit 60,000, Estimated Tokens: the item's
 *              tokens) and Report Outcome, Failed items round again through Backoff Delay (as
 *              example 11 is wired)
 *   openai     the same items through n8n's OpenAI node alone, error output on
 *
 * (Until the wait in line stopped counting against Total Deadline, a row ran the resilient one with
 * Total Deadline 30 min: at the defaults 121 of 200 items had left on the error output after 250 s.)
 *
 * The token rows run at the same time, each against an API of its own (its own sliding
 * minute): the token-limited ideal is about 13.5 minutes, so one after the other would take twice
 * that. A webhook call brings an execution's items in its body (a Code node makes them), so the
 * sizes are the driver's, drawn from a seeded generator: every run sends the same requests.
 */
import { callWebhook, getExecution } from '../e2e/harness.mjs';
import { seededRandom } from './llm-upstream.mjs';
import { awaitExecutions, branchWorkflow, lastExecutionId, RESILIENT_HTTP, RETRY_ON_FAIL_MAX, webhookItemsNodes, webhookPath } from './real-n8n-lib.mjs';

const TRAFFIC_CONTROL = 'n8n-nodes-resilient-http.resilientHttpTrafficControl';
const BACKOFF_DELAY = 'n8n-nodes-resilient-http.backoffDelay';

export const LLM = Object.freeze({
	items: 200,
	minTokens: 100,
	maxTokens: 8000,
	/** An item's max_tokens as a share of its tokens; the rest is its prompt (4 characters a token). */
	outputShare: 0.25,
	tpm: 60_000,
	rpm: 500,
	seed: 36,
	latencyMs: [200, 800],
	model: 'gpt-4o-mini',
	quotaModel: 'gpt-4o-mini-spent',
	quotaOthers: 30,
	/** Tokens of each item beside the quota item: small, so that no token wait hides a pause. */
	quotaOtherTokens: 400,
});

export const LLM_ROWS = [
	{ slug: 'quota', serverSeed: 1, name: `Resilient HTTP Request, defaults: 1 insufficient_quota item and ${LLM.quotaOthers} others`, kind: 'resilient' },
	{ slug: 'resilient', serverSeed: 2, name: 'Resilient HTTP Request, defaults (no Token Limit)', kind: 'resilient' },
	{ slug: 'core', serverSeed: 3, name: `HTTP Request + Retry On Fail, max (${RETRY_ON_FAIL_MAX.maxTries} tries, ${RETRY_ON_FAIL_MAX.waitBetweenTries} ms)`, kind: 'core', retry: RETRY_ON_FAIL_MAX },
	// the same latencies as the resilient row's API (serverSeed)
	{ slug: 'openai-guarded', serverSeed: 4, name: "n8n's OpenAI node behind Wait for Room (Token Limit 60,000, Estimated Tokens) and Report Outcome, Loop Over Items of 1, Backoff Delay on Failed", kind: 'openai-guarded' },
	{ slug: 'openai', serverSeed: 5, name: "n8n's OpenAI node alone (error output on)", kind: 'openai' },
];

/**
 * Issue 36's queue-mode rows: one API for both (its one sliding minute), two workers, and the two
 * nodes under one *API Scope*, their state in Redis: Resilient HTTP Request (learning the budget
 * from the headers) takes the even items, n8n's OpenAI node behind Wait for Room the odd ones.
 */
export const LLM_QUEUE_ROWS = [
	{ slug: 'queue-resilient', name: 'queue mode: Resilient HTTP Request, API Scope shared, the even items', kind: 'resilient', scope: 'bench-llm-queue' },
	{ slug: 'queue-openai', name: "queue mode: n8n's OpenAI node behind Wait for Room and Report Outcome, the same API Scope, the odd items", kind: 'openai-guarded', scope: 'bench-llm-queue' },
];

/** The OpenAI credential of a row whose node is n8n's OpenAI node: its Base URL is the row's API. */
export const openAiCredential = (row) => ({ id: `rhBenchOpenAi${row.index}`, name: `Bench OpenAI ${row.slug}`, type: 'openAiApi', data: { apiKey: 'sk-bench-not-a-real-key', url: `${row.url}/v1` } });

/** A fake key: the server only checks that one is sent. */
const API_KEY = 'sk-bench-not-a-real-key';

/** `items` requests { key, chars, maxTokens, model, tokens }: tokens = chars / 4 + maxTokens, seeded. */
export function llmItems({ items, minTokens, maxTokens, outputShare, seed, model }) {
	const random = seededRandom(seed);
	return Array.from({ length: items }, (_, k) => {
		const tokens = minTokens + Math.floor(random() * (maxTokens - minTokens + 1));
		const output = Math.max(1, Math.round(tokens * outputShare));
		return { key: `item-${k}`, chars: 4 * (tokens - output), maxTokens: output, model, tokens };
	});
}

/** The Code node's items: the webhook body's list, one item each. */
const EXPAND = 'return $input.first().json.body.items.map((item) => ({ json: item }));';

/** The chat request of an item: a user message of `chars` characters, max_tokens, and the key as OpenAI's `user`. */
const BODY = '={{ JSON.stringify({ model: $json.model, messages: [{ role: "user", content: "word ".repeat(Math.ceil($json.chars / 5)).slice(0, $json.chars) }], max_tokens: $json.maxTokens, user: $json.key }) }}';

function requestParameters(row) {
	return {
		method: 'POST',
		url: `${row.url}/v1/chat/completions`,
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${API_KEY}` }] },
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: BODY,
	};
}

/** The prompt of an item for n8n's OpenAI node: the same characters as the chat requests' message. */
const PROMPT = '={{ "word ".repeat(Math.ceil($json.chars / 5)).slice(0, $json.chars) }}';

/** n8n's OpenAI node (v2.3, Message a Model: the Responses API), named as the HTTP nodes are, so that the run is found by it. */
function openAiNode(row, x, y) {
	return {
		id: `http-${row.slug}`,
		name: `HTTP ${row.slug}`,
		type: '@n8n/n8n-nodes-langchain.openAi',
		typeVersion: 2.3,
		position: [x, y],
		onError: 'continueErrorOutput',
		parameters: { modelId: { __rl: true, value: LLM.model, mode: 'id' }, responses: { values: [{ content: PROMPT }] }, builtInTools: {}, options: { maxTokens: '={{ $json.maxTokens }}', safetyIdentifier: '={{ $json.key }}' } },
		credentials: { openAiApi: { id: openAiCredential(row).id, name: openAiCredential(row).name } },
	};
}

/** The package's nodes of a row in queue mode keep the API's state in Redis (row.redisCredential). */
function storeOf(row) {
	if (!row.redisCredential) return { parameters: {}, extra: {} };
	return { parameters: { stateStore: 'redis' }, extra: { credentials: { resilientHttpRedis: row.redisCredential } } };
}

/** Loop Over Items (1) -> Wait for Room -> OpenAI -> Report Outcome: Success back to the loop, Failed through Backoff Delay. */
function guardedNodes(row, webhook, items) {
	const y = row.index * 200;
	const node = (name, type, x, parameters, extra = {}) => ({ id: `${name}-${row.slug}`.replace(/ /g, '-'), name: `${name} ${row.slug}`, type, typeVersion: 1, position: [x, y], parameters, ...extra });
	const scope = row.scope ?? `bench-${row.slug}`;
	const loop = { ...node('Loop', 'n8n-nodes-base.splitInBatches', 500, { batchSize: 1, options: {} }), typeVersion: 3 };
	const wait = node('Wait for Room', TRAFFIC_CONTROL, 750, { operation: 'waitForRoom', apiScope: scope, ...storeOf(row).parameters, waitOptions: { tokenLimit: LLM.tpm, estimatedTokens: '={{ $json.tokens }}' } }, { onError: 'continueErrorOutput', ...storeOf(row).extra });
	const openai = openAiNode(row, 1000, y);
	const report = node('Report Outcome', TRAFFIC_CONTROL, 1250, { operation: 'reportOutcome', apiScope: scope, ...storeOf(row).parameters, reportOptions: {} }, storeOf(row).extra);
	const backoff = node('Backoff Delay', BACKOFF_DELAY, 1500, { maxAttempts: 10, options: { baseDelay: 1000, maxDelay: 30000 } });
	const nodes = [webhook, items, loop, wait, openai, report, backoff];
	const links = [[webhook, items], [items, loop], [loop, wait, 1], [wait, openai], [wait, loop, 1], [openai, report], [openai, report, 1], [report, loop], [report, backoff, 1], [backoff, wait], [backoff, loop, 1]];
	return { nodes, links };
}

function rowNodes(row) {
	const y = row.index * 200;
	const [webhook, items] = webhookItemsNodes(row, EXPAND);
	if (row.kind === 'openai-guarded') return guardedNodes(row, webhook, items);
	if (row.kind === 'openai') {
		const openai = openAiNode(row, 500, y);
		return { nodes: [webhook, items, openai], links: [[webhook, items], [items, openai]] };
	}
	// error output on, both nodes: the execution ends, and the failed items are counted
	const base = { id: `http-${row.slug}`, name: `HTTP ${row.slug}`, position: [500, y], onError: 'continueErrorOutput' };
	const http =
		row.kind === 'core'
			? { ...base, type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters: { ...requestParameters(row), options: {} }, retryOnFail: true, maxTries: row.retry.maxTries, waitBetweenTries: row.retry.waitBetweenTries }
			: // each item's waits at the controller, in its story (the quota row reads them)
				{
					...base,
					type: RESILIENT_HTTP,
					typeVersion: 1,
					parameters: { ...requestParameters(row), ...storeOf(row).parameters, ...(row.scope ? { sharedLimits: { budgetScope: row.scope } } : {}), retryOptions: { retryStory: 'everyItem' } },
					...storeOf(row).extra,
				};
	return { nodes: [webhook, items, http], links: [[webhook, items], [items, http]] };
}

/** One workflow with a branch per row; rows carry their server's url and the workflow's id. */
export const llmWorkflow = (workflowId, rows) => branchWorkflow(workflowId, 'Bench: LLM token budgets', rows, rowNodes);

/** The most tokens the API admitted in any minute [t, t + 60 s), over its 200s. */
export function busiestMinuteTokens(log) {
	const admitted = log.filter((e) => e.status === 200).sort((a, b) => a.time - b.time);
	let most = 0;
	let sum = 0;
	for (let first = 0, last = 0; last < admitted.length; last++) {
		sum += admitted[last].tokens;
		while (admitted[last].time - admitted[first].time >= 60_000) sum -= admitted[first++].tokens;
		most = Math.max(most, sum);
	}
	return most;
}

/** POSTs the items to the row's webhook; resolves the time of the call. */
async function postItems(n8n, row, items) {
	const calledAt = Date.now();
	const res = await callWebhook(n8n, webhookPath(row.workflowId, row), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
	await res.arrayBuffer();
	if (res.status !== 200) throw new Error(`${row.slug}: the webhook answered ${res.status}`);
	return calledAt;
}

/** The index of the input item an output item came from (n8n's pairedItem). */
const inputIndex = (item) => (Array.isArray(item.pairedItem) ? item.pairedItem[0]?.item : item.pairedItem?.item);

/** The HTTP node's outputs in a stored execution: [success items, error items]. */
function outputsOf(execution, row) {
	const main = execution.data?.resultData?.runData?.[`HTTP ${row.slug}`]?.at(-1)?.data?.main ?? [];
	return [main[0] ?? [], main[1] ?? []];
}

/** Items whose request got a 200 at the API (by their key): what n8n's OpenAI node rows count as succeeded. */
const answeredKeys = (log) => new Set(log.filter((e) => e.status === 200).map((e) => e.key));

/** What every token row reports, from the API's log and the stored execution. */
function tokenRow(row, items, calledAt, log, execution, stoppedAt) {
	const viaOpenAi = row.kind === 'openai' || row.kind === 'openai-guarded';
	// n8n's OpenAI node gives the answer's text, and the guarded row's items go round a loop: an item
	// succeeded when the API answered it
	const [ok, failed] = viaOpenAi ? [[...answeredKeys(log)], items.filter((i) => !answeredKeys(log).has(i.key)).map((i) => ({ json: { error: { reason: 'never answered' } } }))] : outputsOf(execution, row);
	const admitted = log.filter((e) => e.status === 200);
	const tokens = admitted.reduce((sum, e) => sum + e.tokens, 0);
	const offered = items.reduce((sum, i) => sum + i.tokens, 0);
	// the ideal: every item's tokens once, at the limit (tokens / limit), or the requests' bound if tighter
	const idealMs = Math.round(Math.max(offered / LLM.tpm, items.length / LLM.rpm) * 60_000);
	const perItem = new Map();
	for (const e of log) perItem.set(e.key, (perItem.get(e.key) ?? 0) + 1);
	// why items failed: the node's reason (HTTP Request gives none: its status), with one message
	const errorReasons = {};
	for (const item of failed) {
		const error = item.json?.error ?? {};
		const reason = String(error.reason ?? error.httpCode ?? error.status ?? 'error');
		errorReasons[reason] = (errorReasons[reason] ?? 0) + 1;
	}
	const firstError = failed[0]?.json?.error;
	// what the failed items' stories say (up to 3): their code and the story's lines, to tell why
	const errorStories = failed.slice(0, 3).map((item) => {
		const error = item.json?.error ?? {};
		const story = item.json?._retry ?? error._retry ?? {};
		return { code: String(error.code ?? error.reason ?? ''), lines: (Array.isArray(story.lines) ? story.lines : []).slice(0, 8) };
	});
	return {
		slug: row.slug,
		name: row.name,
		items: items.length,
		succeeded: viaOpenAi ? ok.length : ok.filter((item) => item.json?.object === 'chat.completion').length,
		errorOutput: failed.length,
		errorReasons,
		errorSample: firstError ? String(firstError.message ?? firstError.description ?? '').slice(0, 300) : null,
		errorStories,
		executionStatus: execution.status,
		requests: log.length,
		status429: log.filter((e) => e.status === 429).length,
		// when the 429s came (s from the call): a first burst, or all along
		status429AtS: log.filter((e) => e.status === 429).map((e) => Math.round((e.time - calledAt) / 1000)),
		mostRequestsPerItem: Math.max(0, ...perItem.values()),
		offeredTokens: offered,
		admittedTokens: tokens,
		busiestMinuteTokens: busiestMinuteTokens(log),
		firstRequestMs: log.length ? log[0].time - calledAt : null,
		lastRequestMs: log.length ? log[log.length - 1].time - calledAt : null,
		durationMs: stoppedAt ? stoppedAt - calledAt : null,
		idealMs,
	};
}

/** The quota row's figures: the quota item's requests and error, the other items' waits for a pause. */
function quotaRow(row, log, execution) {
	const [ok, failed] = outputsOf(execution, row);
	// the quota item is the first input item (item-0)
	const quotaKey = 'item-0';
	const isQuota = (item) => inputIndex(item) === 0;
	const quotaRequests = log.filter((e) => e.key === quotaKey);
	const answeredAt = quotaRequests[0]?.time ?? Infinity;
	const quotaItem = failed.find(isQuota) ?? ok.find(isQuota);
	const error = quotaItem?.json?.error ?? {};
	const others = ok.filter((item) => !isQuota(item));
	// each other item's waits at the controller by reason, summed over its attempts (its story)
	const waited = {};
	for (const item of [...ok, ...failed].filter((i) => !isQuota(i))) {
		for (const attempt of item.json?._retry?.history ?? []) {
			for (const [reason, ms] of Object.entries(attempt.traffic?.waitedFor ?? {})) waited[reason] = (waited[reason] ?? 0) + ms;
		}
	}
	const after = log.filter((e) => e.key !== quotaKey && e.time > answeredAt);
	return {
		slug: row.slug,
		name: row.name,
		requests: log.length,
		quotaRequests: quotaRequests.length,
		quotaStatus: quotaRequests[0]?.status ?? null,
		quotaOnErrorOutput: failed.some(isQuota),
		reason: String(error.reason ?? ''),
		message: String(error.message ?? error.description ?? ''),
		others: LLM.quotaOthers,
		othersSucceeded: others.filter((item) => item.json?.object === 'chat.completion').length,
		othersRequests: log.filter((e) => e.key !== quotaKey).length,
		othersAfterQuota: after.length,
		othersWaitedMs: waited,
		othersLastRequestAfterQuotaMs: after.length ? Math.max(...after.map((e) => e.time)) - answeredAt : null,
		executionStatus: execution.status,
	};
}

/** Runs one webhook call per row (at once), awaits the executions, reads them back. */
async function runRows(context, entries) {
	const { n8n, userFolder, upstream, client, say, workflowId, timeoutMs } = context;
	const afterId = await lastExecutionId(userFolder, workflowId);
	for (const { row } of entries) await upstream.take(row.url);
	const calledAt = await Promise.all(entries.map(({ row, items }) => postItems(n8n, row, items)));
	const { rows, timedOut } = await awaitExecutions(userFolder, workflowId, afterId, entries.length, { timeoutMs, client, log: say });
	const executions = await Promise.all(rows.map((r) => getExecution(client, r.id)));
	return Promise.all(
		entries.map(async ({ row }, n) => {
			const execution = executions.find((e) => e.data?.resultData?.runData?.[`HTTP ${row.slug}`]);
			if (!execution) throw new Error(`${row.slug}: no execution ran its HTTP node${timedOut ? ' (timed out)' : ''}`);
			const log = (await upstream.take(row.url)).sort((a, b) => a.time - b.time);
			const stoppedAt = rows.find((r) => r.id === Number(execution.id))?.stoppedAt ?? null;
			return { row, calledAt: calledAt[n], log, execution, stoppedAt, timedOut };
		}),
	);
}

/** Every row on one n8n; resolves the LlmRun of test/bench/real-n8n-results.ts. */
export async function llmRows(context) {
	const { say, rows, itemCount = LLM.items } = context;
	const bySlug = Object.fromEntries(rows.map((r) => [r.slug, r]));
	const items = llmItems({ ...LLM, items: itemCount });
	const quotaItems = [
		{ key: 'item-0', chars: 4 * 300, maxTokens: 100, model: LLM.quotaModel, tokens: 400 },
		...llmItems({ ...LLM, items: LLM.quotaOthers, minTokens: LLM.quotaOtherTokens, maxTokens: LLM.quotaOtherTokens, seed: LLM.seed + 1 }).map((item, k) => ({ ...item, key: `item-${k + 1}` })),
	];
	const [quotaRun] = await runRows({ ...context, timeoutMs: 120_000 }, [{ row: bySlug.quota, items: quotaItems }]);
	const quota = quotaRow(bySlug.quota, quotaRun.log, quotaRun.execution);
	say(`  quota: ${quota.quotaRequests} request(s) for the quota item (${quota.quotaStatus}), reason "${quota.reason}"; others ${quota.othersSucceeded}/${quota.others} succeeded, ${quota.othersAfterQuota} sent after its 429, waits ${JSON.stringify(quota.othersWaitedMs)}`);
	const offered = items.reduce((sum, i) => sum + i.tokens, 0);
	say(`  tokens: ${items.length} items, ${offered} tokens (ideal ${(offered / LLM.tpm).toFixed(1)} min at ${LLM.tpm}/min); both rows at once`);
	const runs = await runRows({ ...context, timeoutMs: Math.max(2_400_000, 2 * (offered / LLM.tpm) * 60_000) }, [
		{ row: bySlug.resilient, items },
		{ row: bySlug.core, items },
		{ row: bySlug['openai-guarded'], items },
		{ row: bySlug.openai, items },
	]);
	const [resilient, core, openaiGuarded, openai] = runs.map((r) => ({ ...tokenRow(r.row, items, r.calledAt, r.log, r.execution, r.stoppedAt), timedOut: r.timedOut }));
	for (const r of [resilient, core, openaiGuarded, openai]) {
		say(`  ${r.slug}: ${r.succeeded}/${r.items} succeeded (${r.errorOutput} on the error output: ${JSON.stringify(r.errorReasons)}), ${r.requests} requests, ${r.status429} x 429, ${r.durationMs} ms (ideal ${r.idealMs}), busiest minute ${r.busiestMinuteTokens} tokens`);
	}
	return { settings: { ...LLM, items: itemCount, latencyMs: [...LLM.latencyMs] }, quota, resilient, core, openaiGuarded, openai };
}

/**
 * The queue-mode rows on a cluster (onQueueCluster): both webhook calls at once, each row's items,
 * one API. Resolves the LlmQueueRun of test/bench/real-n8n-results.ts: each row as the token rows
 * report, and the API's whole log (every request of both).
 */
export async function llmQueueRows(context) {
	const { say, rows, itemCount = LLM.items, upstream, userFolder, workflowId, client } = context;
	const all = llmItems({ ...LLM, items: itemCount });
	const itemsOf = [all.filter((_, k) => k % 2 === 0), all.filter((_, k) => k % 2 === 1)];
	const offered = all.reduce((sum, i) => sum + i.tokens, 0);
	say(`  queue: ${all.length} items, ${offered} tokens (ideal ${(offered / LLM.tpm).toFixed(1)} min at ${LLM.tpm}/min), half through each node, one API`);
	const afterId = await lastExecutionId(userFolder, workflowId);
	await upstream.take(rows[0].url);
	const calledAt = await Promise.all(rows.map((row, n) => postItems(context.n8n, row, itemsOf[n])));
	const { rows: done, timedOut } = await awaitExecutions(userFolder, workflowId, afterId, rows.length, { timeoutMs: Math.max(2_400_000, 2 * (offered / LLM.tpm) * 60_000), client, log: say });
	const executions = await Promise.all(done.map((r) => getExecution(client, r.id)));
	const log = (await upstream.take(rows[0].url)).sort((a, b) => a.time - b.time);
	const byRow = rows.map((row, n) => {
		const keys = new Set(itemsOf[n].map((i) => i.key));
		const execution = executions.find((e) => e.data?.resultData?.runData?.[`HTTP ${row.slug}`]);
		if (!execution) throw new Error(`${row.slug}: no execution ran its node${timedOut ? ' (timed out)' : ''}`);
		const stoppedAt = done.find((r) => r.id === Number(execution.id))?.stoppedAt ?? null;
		return { ...tokenRow(row, itemsOf[n], calledAt[n], log.filter((e) => keys.has(e.key)), execution, stoppedAt), timedOut };
	});
	const start = Math.min(...calledAt);
	const ends = byRow.map((r, n) => (r.durationMs === null ? null : calledAt[n] + r.durationMs));
	const api = {
		requests: log.length,
		status429: log.filter((e) => e.status === 429).length,
		busiestMinuteTokens: busiestMinuteTokens(log),
		offeredTokens: offered,
		durationMs: ends.some((end) => end === null) ? null : Math.max(...ends) - start,
		idealMs: Math.round(Math.max(offered / LLM.tpm, all.length / LLM.rpm) * 60_000),
	};
	for (const r of byRow) say(`  ${r.slug}: ${r.succeeded}/${r.items} succeeded, ${r.requests} requests, ${r.status429} x 429, ${r.durationMs} ms`);
	say(`  queue, the API: ${api.requests} requests, ${api.status429} x 429, busiest minute ${api.busiestMinuteTokens} tokens, ${api.durationMs} ms (ideal ${api.idealMs})`);
	return { settings: { ...LLM, items: itemCount, latencyMs: [...LLM.latencyMs] }, resilient: byRow[0], openai: byRow[1], api };
}
