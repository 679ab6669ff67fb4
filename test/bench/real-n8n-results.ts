/**
 * The real-n8n part of `npm run bench` (written by the fleet scripts, which run real n8n 2.41.1
 * servers) hands its figures to the engine part in `.bench/real-n8n.json`, of this shape. The
 * engine part reads it only when it was written by the same bench run: its `runId` equals the
 * environment's BENCH_RUN_ID (set by the bench script). Otherwise its rows are "not measured in
 * this run", and so are their goals (a goal not measured is not met).
 */
import { existsSync, readFileSync } from 'node:fs';

export interface RealN8nResults {
	runId: string; // = process.env.BENCH_RUN_ID
	measuredAt: string; // ISO time
	n8nVersion: string; // '2.41.1'
	nodeVersion: string; // of the n8n processes
	/** 200 webhook executions of one item each against one n8n (regular mode), upstream down for outageMs from the first call. */
	webhookFleet: FleetRun | { skipped: string };
	/** The healthy rows: one execution of N items in one n8n, both request nodes in turn (test/bench/real-n8n-healthy.mjs); absent in files of older runs. */
	healthy?: HealthyRun | { skipped: string };
	/** main + workers in queue mode (PostgreSQL + Redis, Shared State = Redis). */
	queueMode: { workers: number; workerConcurrency: number; storm: FleetRun; rateLimit: RateRun; /** Issue 39: the webhook fleet's outage across the workers (absent in files of older runs). */ recovery?: FleetRun } | { skipped: string };
	/** A pause without a stated end whose quota comes back, and a stated Retry-After (test/bench/real-n8n-pauses.mjs); absent in files of older runs. */
	pauses?: PausesRun | { skipped: string };
	/** Fair Share Key and Urgent against an API that takes 20 requests a second (test/bench/real-n8n-tenants.mjs); absent in files of older runs. */
	tenants?: TenantsRun | { skipped: string };
	/** Issue 36: token budgets against local OpenAI-compatible APIs, and an insufficient_quota 429 (test/bench/real-n8n-llm.mjs); absent in files of older runs. */
	llm?: LlmRun | { skipped: string };
	/** Issue 36 in queue mode: both nodes against one API's token budget across two workers (absent in files of older runs). */
	llmQueue?: LlmQueueRun | { skipped: string };
}
/** Resilient HTTP Request (the even items) and n8n's OpenAI node behind Wait for Room (the odd ones) under one API Scope, two workers, one API. */
export interface LlmQueueRun {
	settings: LlmRun['settings'];
	resilient: LlmTokenRow;
	openai: LlmTokenRow;
	/** The API's whole log: both rows' requests. */
	api: { requests: number; status429: number; busiestMinuteTokens: number; offeredTokens: number; durationMs: number | null; idealMs: number };
}
/** One execution of the LLM items through one node, against an API of its own (60,000 tokens a minute). */
export interface LlmTokenRow {
	slug: 'resilient' | 'core' | 'resilient-deadline' | 'openai-guarded' | 'openai' | 'queue-resilient' | 'queue-openai';
	name: string;
	items: number;
	/** Items on the success output with a chat.completion, and those on the error output. */
	succeeded: number;
	errorOutput: number;
	/** The error output's items by the node's reason (HTTP Request's by status), and the first one's message (absent from runs before them). */
	errorReasons?: Record<string, number>;
	errorSample?: string | null;
	/** Up to 3 failed items: their code and their retry story's first lines (absent from runs before them). */
	errorStories?: Array<{ code: string; lines: string[] }>;
	executionStatus: string;
	requests: number;
	status429: number;
	/** Each 429's arrival, in seconds from the webhook call (absent from runs before it). */
	status429AtS?: number[];
	/** The most requests the API got for one item. */
	mostRequestsPerItem: number;
	/** Every item's tokens (prompt + max_tokens) once, and what the API admitted (retries of items already admitted included). */
	offeredTokens: number;
	admittedTokens: number;
	/** The most tokens the API admitted in any minute [t, t + 60 s) (it refuses beyond its limit). */
	busiestMinuteTokens: number;
	/** From the webhook call: the first and the last request reaching the API, and the execution's end (ms). */
	firstRequestMs: number | null;
	lastRequestMs: number | null;
	durationMs: number | null;
	/** offeredTokens at the limit a minute (or the items at the request limit, if tighter), in ms. */
	idealMs: number;
	timedOut: boolean;
}
/** One insufficient_quota item (the first input item) among others to the same API. */
export interface LlmQuotaRow {
	slug: 'quota';
	name: string;
	requests: number;
	/** Requests the API got for the quota item (1: not retried), and its answer. */
	quotaRequests: number;
	quotaStatus: number | null;
	quotaOnErrorOutput: boolean;
	/** The item's error: the node's reason and message. */
	reason: string;
	message: string;
	others: number;
	othersSucceeded: number;
	othersRequests: number;
	/** The other items' requests that reached the API after the quota item's 429, and the last of them (ms after it). */
	othersAfterQuota: number;
	othersLastRequestAfterQuotaMs: number | null;
	/** The other items' waits at the API's controller, by reason (their stories), summed in ms. */
	othersWaitedMs: Partial<Record<'paused' | 'held' | 'window' | 'pace' | 'budget' | 'tokens', number>>;
	executionStatus: string;
}
export interface LlmRun {
	settings: { items: number; minTokens: number; maxTokens: number; outputShare: number; tpm: number; rpm: number; seed: number; latencyMs: number[]; model: string; quotaModel: string; quotaOthers: number; quotaOtherTokens: number };
	quota: LlmQuotaRow;
	resilient: LlmTokenRow;
	core: LlmTokenRow;
	/** The resilient row with Total Deadline 30 min (runs before the wait in line stopped counting against it). */
	resilientDeadline?: LlmTokenRow;
	/** n8n's OpenAI node behind Wait for Room and Report Outcome, and alone (absent from runs before them). */
	openaiGuarded?: LlmTokenRow;
	openai?: LlmTokenRow;
}
interface TenantRowBase {
	slug: string;
	name: string;
	requests: number;
	status429: number;
	/** The most requests that reached the API in any one second (a sliding second on the upstream's clock). */
	busiestSecond: number;
	executions: number;
	succeeded: number;
	webhookCallsFailed: number;
	timedOut: boolean;
}
/** A row's tenants' times: from each tenant's call to its last request reaching the API (ms; null: none did). */
type SharesRow = TenantRowBase & { smallMs: Array<number | null>; smallFirstMs: Array<number | null>; /** The small tenants' first items' waits at the controller (their stories). */ smallFirstWaitedMs: number[]; bigMs: number | null; bigFirstMs: number | null };
/** Each urgent item: from its call to its request (ms), and its wait at the API's controller (its story). */
type UrgentRow = TenantRowBase & { urgentMs: Array<number | null>; urgentWaitedMs: number[] };
/** Three tenants at once under Rate Limit Per Key: each one's busiest second on the API's clock (big, small1, small2), the small ones' and the big one's times. */
type KeyedRow = TenantRowBase & { tenantBusiestSecond: number[]; tenantBusiest980Ms: number[]; smallMs: Array<number | null>; bigMs: number | null };
export interface TenantsRun {
	settings: { limitRps: number; big: number; small: number; startGapMs: number; bulk: number; urgentCalls: number; urgentEveryMs: number; keyRps?: number; keyedBig?: number };
	alone: TenantRowBase & { smallMs: Array<number | null>; smallFirstMs: Array<number | null> };
	fair: SharesRow;
	fifo: SharesRow;
	urgentAlone: UrgentRow;
	urgent: UrgentRow;
	/** Absent from runs before Rate Limit Per Key. */
	keyed?: KeyedRow;
}
interface PauseRowBase {
	slug: string;
	name: string;
	/** Webhook calls made (one item each), and those n8n did not take. */
	calls: number;
	webhookCallsFailed: number;
	/** Executions that ended in success, and those that did not. */
	succeeded: number;
	failed: number;
	timedOut: boolean;
	requests: number;
	status429: number;
}
export interface PausesRun {
	settings: { dailyBackMs: number; dailyEveryMs: number; dailyCallsMs: number; statedS: number; statedEveryMs: number; statedCallsMs: number };
	daily: PauseRowBase & { sentWhileSpent: number; quotaBackAfterMs: number; resumedAfterReturnMs: number | null; callsBeforeResume: number };
	stated: PauseRowBase & { retryAfterS: number; earlyRequests: number; firstAfterEndMs: number | null; lastAfterEndMs: number | null };
}
/** One execution: the request node's time as n8n stored it (none for the baseline), the execution's, and the n8n process's CPU over it. */
export interface HealthySample {
	nodeMs?: number;
	executionMs: number;
	cpuMs: number;
	/** The machine's TCP counters over the execution: handshakes a full listen queue dropped, SYNs sent again (absent from runs before them). */
	tcp?: { listenDrops: number; synRetrans: number };
}
export interface HealthySize {
	items: number;
	/** Per round, in the same order: each side's first execution (a new API origin) and the later one (the same origin). */
	samples: {
		core: { first: HealthySample[]; later: HealthySample[] };
		resilient: { first: HealthySample[]; later: HealthySample[] };
		/** Resilient HTTP Request with Adapt Items in Flight off (no slow start); absent from runs before it. */
		fixed?: { first: HealthySample[]; later: HealthySample[] };
		/** Webhook -> Split Out without a request node: the execution's CPU around the node. */
		baseline: HealthySample[];
	};
}
export interface HealthyRun {
	latencyMs: number;
	runs: number;
	sizes: HealthySize[];
}
export interface FleetRun {
	executions: number;
	outageMs: number;
	rows: FleetRow[];
}
export interface FleetRow {
	slug: 'rof-default' | 'rof-max' | 'resilient'; // HTTP Request + Retry On Fail 3 x 1000 ms, 5 x 5000 ms; Resilient HTTP Request at defaults
	name: string;
	executions: number;
	/** Executions whose item got a 200 from the upstream and whose n8n execution ended in success. */
	succeeded: number;
	/** Requests the upstream received for this row. */
	requests: number;
	/** requests / executions. */
	amplification: number;
	/** Most retries (a key's requests after its first) in any 100 ms window. */
	retryPeak100ms: number;
	/** From the first webhook call to the last one answered by n8n (how fast n8n took them). */
	callsSpreadMs: number;
	/** From the first call to the last execution's end. */
	durationMs: number;
	completionMs: { p50: number; p95: number; max: number };
}
export interface RateRun {
	executions: number; // webhook executions of one item each, spread over the workers
	limitRps: number; // the upstream's limit, shared by all: 429 + Retry-After: 1 beyond it
	rows: RateRow[];
}
export interface RateRow {
	slug: 'rof-default' | 'resilient' | 'resilient-quota-headers';
	name: string;
	executions: number;
	succeeded: number;
	requests: number;
	status429: number;
	durationMs: number;
	/** executions / limitRps, in ms */
	idealMs: number;
}

/** What the engine part found: the figures of this run, or why there are none. */
export type RealN8nReading = { measured: true; path: string; results: RealN8nResults } | { measured: false; path: string; why: string; short: string };

export const REAL_N8N_JSON = '.bench/real-n8n.json';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A part the fleet scripts skipped, with their reason. */
export const isSkipped = (value: unknown): value is { skipped: string } => isObject(value) && typeof value.skipped === 'string';

/** What is wrong with a fleet run's shape, or undefined. */
function fleetProblem(run: unknown, where: string): string | undefined {
	if (!isObject(run) || !Array.isArray(run.rows) || typeof run.executions !== 'number' || typeof run.outageMs !== 'number') return `${where} is not a FleetRun`;
	for (const row of run.rows as unknown[]) {
		if (!isObject(row) || typeof row.slug !== 'string' || typeof row.executions !== 'number' || typeof row.succeeded !== 'number' || typeof row.requests !== 'number' || typeof row.amplification !== 'number' || typeof row.retryPeak100ms !== 'number' || !isObject(row.completionMs)) {
			return `${where} has a row that is not a FleetRow`;
		}
	}
	return undefined;
}

function rateProblem(run: unknown, where: string): string | undefined {
	if (!isObject(run) || !Array.isArray(run.rows) || typeof run.executions !== 'number' || typeof run.limitRps !== 'number') return `${where} is not a RateRun`;
	for (const row of run.rows as unknown[]) {
		if (!isObject(row) || typeof row.slug !== 'string' || typeof row.executions !== 'number' || typeof row.succeeded !== 'number' || typeof row.requests !== 'number' || typeof row.status429 !== 'number' || typeof row.durationMs !== 'number' || typeof row.idealMs !== 'number') {
			return `${where} has a row that is not a RateRow`;
		}
	}
	return undefined;
}

function healthyProblem(run: unknown): string | undefined {
	const samples = (list: unknown, node: boolean) => Array.isArray(list) && list.every((x) => isObject(x) && typeof x.cpuMs === 'number' && typeof x.executionMs === 'number' && (!node || typeof x.nodeMs === 'number'));
	if (!isObject(run) || typeof run.latencyMs !== 'number' || typeof run.runs !== 'number' || !Array.isArray(run.sizes)) return 'healthy is not a HealthyRun';
	for (const size of run.sizes as unknown[]) {
		if (!isObject(size) || typeof size.items !== 'number' || !isObject(size.samples)) return 'healthy has a size that is not a HealthySize';
		const { core, resilient, fixed, baseline } = size.samples;
		for (const side of fixed === undefined ? [core, resilient] : [core, resilient, fixed]) if (!isObject(side) || !samples(side.first, true) || !samples(side.later, true)) return `healthy (${String(size.items)} items) has a side without samples`;
		if (!samples(baseline, false)) return `healthy (${String(size.items)} items) has no baseline samples`;
	}
	return undefined;
}

function pausesProblem(run: unknown): string | undefined {
	const counts = (row: unknown) => isObject(row) && ['calls', 'succeeded', 'failed', 'requests', 'status429'].every((k) => typeof row[k] === 'number');
	if (!isObject(run) || !isObject(run.settings) || !counts(run.daily) || !counts(run.stated)) return 'pauses is not a PausesRun';
	const daily = run.daily as Record<string, unknown>;
	const stated = run.stated as Record<string, unknown>;
	if (typeof daily.quotaBackAfterMs !== 'number' || !(daily.resumedAfterReturnMs === null || typeof daily.resumedAfterReturnMs === 'number')) return 'pauses.daily lacks its times';
	if (typeof stated.earlyRequests !== 'number' || typeof stated.retryAfterS !== 'number') return 'pauses.stated lacks its counts';
	return undefined;
}

function tenantsProblem(run: unknown): string | undefined {
	const counts = (row: unknown) => isObject(row) && ['requests', 'status429', 'busiestSecond', 'executions', 'succeeded'].every((k) => typeof row[k] === 'number');
	const times = (value: unknown) => Array.isArray(value) && value.every((t) => t === null || typeof t === 'number');
	if (!isObject(run) || !isObject(run.settings)) return 'tenants is not a TenantsRun';
	for (const slug of ['alone', 'fair', 'fifo', 'urgentAlone', 'urgent'] as const) if (!counts(run[slug])) return `tenants.${slug} lacks its counts`;
	const row = (slug: string) => run[slug] as Record<string, unknown>;
	if (![row('alone'), row('fair'), row('fifo')].every((r) => times(r.smallMs) && times(r.smallFirstMs))) return 'tenants lacks the small tenants\' times';
	if (![row('urgentAlone'), row('urgent')].every((r) => times(r.urgentMs) && times(r.urgentWaitedMs))) return 'tenants lacks the urgent items\' times';
	if (run.keyed !== undefined && !(counts(run.keyed) && times(row('keyed').smallMs) && times(row('keyed').tenantBusiestSecond) && times(row('keyed').tenantBusiest980Ms) && typeof run.settings.keyRps === 'number')) return 'tenants.keyed lacks its counts';
	return undefined;
}

function llmProblem(run: unknown): string | undefined {
	if (!isObject(run) || !isObject(run.settings) || typeof run.settings.tpm !== 'number') return 'llm is not an LlmRun';
	const tokenCounts = ['items', 'succeeded', 'errorOutput', 'requests', 'status429', 'offeredTokens', 'admittedTokens', 'busiestMinuteTokens', 'idealMs'];
	for (const slug of ['resilient', 'core'] as const) {
		const row = run[slug];
		if (!isObject(row) || !tokenCounts.every((k) => typeof row[k] === 'number') || !(row.durationMs === null || typeof row.durationMs === 'number')) return `llm.${slug} lacks its counts`;
	}
	const quota = run.quota;
	if (!isObject(quota) || !['quotaRequests', 'others', 'othersSucceeded', 'othersAfterQuota'].every((k) => typeof quota[k] === 'number') || typeof quota.reason !== 'string' || !isObject(quota.othersWaitedMs)) return 'llm.quota lacks its counts';
	return undefined;
}

/** Checks the parsed JSON's shape, so that a broken file reads as "not measured", not as a crash. */
export function shapeProblem(value: unknown): string | undefined {
	if (!isObject(value)) return 'it is not a JSON object';
	for (const field of ['runId', 'measuredAt', 'n8nVersion', 'nodeVersion'] as const) if (typeof value[field] !== 'string') return `its ${field} is not a string`;
	if (!isSkipped(value.webhookFleet)) {
		const problem = fleetProblem(value.webhookFleet, 'webhookFleet');
		if (problem) return problem;
	}
	if (value.healthy !== undefined && !isSkipped(value.healthy)) {
		const problem = healthyProblem(value.healthy);
		if (problem) return problem;
	}
	if (value.pauses !== undefined && !isSkipped(value.pauses)) {
		const problem = pausesProblem(value.pauses);
		if (problem) return problem;
	}
	if (value.tenants !== undefined && !isSkipped(value.tenants)) {
		const problem = tenantsProblem(value.tenants);
		if (problem) return problem;
	}
	if (value.llm !== undefined && !isSkipped(value.llm)) {
		const problem = llmProblem(value.llm);
		if (problem) return problem;
	}
	if (value.llmQueue !== undefined && !isSkipped(value.llmQueue)) {
		const run = value.llmQueue;
		if (!isObject(run) || !isObject(run.api) || !['requests', 'status429', 'idealMs'].every((k) => typeof (run.api as Record<string, unknown>)[k] === 'number')) return 'llmQueue lacks the API\'s counts';
	}
	const queue = value.queueMode;
	if (!isSkipped(queue)) {
		if (!isObject(queue) || typeof queue.workers !== 'number' || typeof queue.workerConcurrency !== 'number') return 'queueMode is neither skipped nor a queue-mode run';
		const problem = fleetProblem(queue.storm, 'queueMode.storm') ?? rateProblem(queue.rateLimit, 'queueMode.rateLimit') ?? (queue.recovery === undefined ? undefined : fleetProblem(queue.recovery, 'queueMode.recovery'));
		if (problem) return problem;
	}
	return undefined;
}

/** Reads the real-n8n figures of this bench run (runId = BENCH_RUN_ID), or says why there are none. */
export function readRealN8nResults(path: string, runId: string | undefined): RealN8nReading {
	if (!existsSync(path)) return { measured: false, path, short: 'no figures', why: `${REAL_N8N_JSON} is absent (the real-n8n part did not run: BENCH_REAL_N8N=0, or jest -c jest.bench.config.js alone)` };
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(path, 'utf8'));
	} catch (error) {
		return { measured: false, path, short: 'unreadable figures', why: `${REAL_N8N_JSON} is not JSON (${(error as Error).message})` };
	}
	const problem = shapeProblem(parsed);
	if (problem) return { measured: false, path, short: 'unreadable figures', why: `${REAL_N8N_JSON} is not of the expected shape: ${problem}` };
	const results = parsed as RealN8nResults;
	if (runId === undefined || runId === '') return { measured: false, path, short: 'figures of another run', why: `${REAL_N8N_JSON} is from run ${results.runId} (${results.measuredAt}), and this run has no BENCH_RUN_ID: it is not this run's` };
	if (results.runId !== runId) return { measured: false, path, short: 'figures of another run', why: `${REAL_N8N_JSON} is from another run (${results.runId}, ${results.measuredAt}; this run is ${runId})` };
	return { measured: true, path, results };
}
