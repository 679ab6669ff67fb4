/**
 * Issue 36's goals for token budgets (LLM APIs), read against the real-n8n figures of one bench run
 * (test/bench/real-n8n-llm.mjs): 200 chat requests through Resilient HTTP Request at its defaults
 * against an OpenAI-compatible API limited in tokens a minute, the same items through n8n's own
 * OpenAI node behind Wait for Room and Report Outcome, an `insufficient_quota` 429, and both nodes in
 * queue mode against one API.
 */
import type { GoalStatus, GoalVerdict } from './goals';
import { isSkipped, type LlmRun, type RealN8nReading, type RealN8nResults } from './real-n8n-results';

export const ISSUE36_GOALS = {
	/** 429s of the Resilient row, as a share of its requests. */
	status429Share: 0.01,
	/** Its time from the call to the execution's end, against the tokens at the limit. */
	timeRatio: 1.15,
	/** n8n's OpenAI node behind the controller: its 429 share and time. */
	openAiStatus429Share: 0.02,
	openAiTimeRatio: 1.2,
} as const;

const EPSILON = 1e-9;
const judged = (met: boolean): GoalStatus => (met ? 'met' : 'not met');
const s = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
const pct = (part: number, whole: number) => (whole === 0 ? '-' : `${(Math.round((1000 * part) / whole) / 10).toString()}%`);

export const ISSUE36_SCENARIOS = {
	tokens: 'issue 36, real n8n: 200 chat requests of 100 to 8,000 tokens, an OpenAI-compatible API of 60,000 tokens and 500 requests a minute',
	quota: 'issue 36, real n8n: an insufficient_quota 429 among other requests to the API',
	openai: "issue 36, real n8n: the same 200 items through n8n's OpenAI node behind Wait for Room and Report Outcome",
	queue: "issue 36, real n8n, queue mode (2 workers): Resilient HTTP Request and n8n's OpenAI node against one API at once, one API Scope",
} as const;
export const ISSUE36_QUEUE_GOAL = `429s <= ${ISSUE36_GOALS.openAiStatus429Share * 100}% of requests in all (one token budget shared)`;
export const ISSUE36_OPENAI_GOALS = ['every item succeeds', `429s <= ${ISSUE36_GOALS.openAiStatus429Share * 100}% of requests`, `time <= ${ISSUE36_GOALS.openAiTimeRatio}x the token-limited ideal`];
export const ISSUE36_TOKEN_GOALS = ['every item succeeds', `429s <= ${ISSUE36_GOALS.status429Share * 100}% of requests`, `time <= ${ISSUE36_GOALS.timeRatio}x the token-limited ideal (tokens / limit)`];
export const ISSUE36_QUOTA_GOALS = ['0 retries', 'the reason in the item', 'other calls to the API not paused'];

function notMeasured(why: string): GoalVerdict[] {
	const none = (scenario: string, goal: string): GoalVerdict => ({ scenario, goal, measured: `not measured in this run: ${why} (section 8)`, status: 'not measured', issueGoal: true });
	return [...ISSUE36_TOKEN_GOALS.map((g) => none(ISSUE36_SCENARIOS.tokens, g)), ...ISSUE36_OPENAI_GOALS.map((g) => none(ISSUE36_SCENARIOS.openai, g)), ...ISSUE36_QUOTA_GOALS.map((g) => none(ISSUE36_SCENARIOS.quota, g)), none(ISSUE36_SCENARIOS.queue, ISSUE36_QUEUE_GOAL)];
}

/** Both nodes on two workers against one API: the share of its requests that met a 429. */
function queueVerdict(run: RealN8nResults['llmQueue']): GoalVerdict {
	const scenario = ISSUE36_SCENARIOS.queue;
	if (run === undefined || isSkipped(run)) return { scenario, goal: ISSUE36_QUEUE_GOAL, measured: `not measured in this run: ${run === undefined ? 'no queue-mode LLM rows in its figures' : `skipped (${run.skipped})`} (section 8)`, status: 'not measured', issueGoal: true };
	const { api, resilient: r, openai: o } = run;
	const measured = `${pct(api.status429, api.requests)} (${api.status429} of ${api.requests}); Resilient HTTP Request ${r.succeeded} of ${r.items}, the OpenAI node ${o.succeeded} of ${o.items}; the busiest minute ${api.busiestMinuteTokens} tokens; ${s(api.durationMs)} (ideal ${s(api.idealMs)})`;
	return { scenario, goal: ISSUE36_QUEUE_GOAL, measured, status: judged(api.status429 <= ISSUE36_GOALS.openAiStatus429Share * api.requests + EPSILON && r.succeeded === r.items && o.succeeded === o.items), issueGoal: true };
}

/** n8n's OpenAI node behind the controller, beside the same node alone. */
function openAiVerdicts({ openaiGuarded: r, openai: alone, settings }: LlmRun): GoalVerdict[] {
	const scenario = ISSUE36_SCENARIOS.openai;
	if (!r) return ISSUE36_OPENAI_GOALS.map((goal) => ({ scenario, goal, measured: 'not measured in this run: no OpenAI node rows in its figures (section 8)', status: 'not measured' as const, issueGoal: true }));
	const ratio = r.durationMs === null ? Infinity : r.durationMs / r.idealMs;
	const allDone = r.succeeded === r.items && !r.timedOut;
	const aloneSide = alone ? `; the OpenAI node alone: ${alone.succeeded} of ${alone.items}, ${pct(alone.status429, alone.requests)} 429s` : '';
	return [
		{ scenario, goal: ISSUE36_OPENAI_GOALS[0], measured: `${r.succeeded} of ${r.items}${aloneSide}`, status: judged(allDone), issueGoal: true },
		{ scenario, goal: ISSUE36_OPENAI_GOALS[1], measured: `${pct(r.status429, r.requests)} (${r.status429} of ${r.requests}); the busiest minute at the API ${r.busiestMinuteTokens} tokens of ${settings.tpm}`, status: judged(r.status429 <= ISSUE36_GOALS.openAiStatus429Share * r.requests + EPSILON), issueGoal: true },
		{ scenario, goal: ISSUE36_OPENAI_GOALS[2], measured: `${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'}x (${s(r.durationMs)}, ideal ${s(r.idealMs)})${allDone ? '' : `, but only ${r.succeeded} of ${r.items} items succeeded`}`, status: judged(allDone && ratio <= ISSUE36_GOALS.openAiTimeRatio + EPSILON), issueGoal: true },
	];
}

function tokenVerdicts({ resilient: r, core, settings }: LlmRun): GoalVerdict[] {
	const scenario = ISSUE36_SCENARIOS.tokens;
	const ratio = r.durationMs === null ? Infinity : r.durationMs / r.idealMs;
	const allDone = r.succeeded === r.items && r.errorOutput === 0 && !r.timedOut;
	const coreSide = `HTTP Request + Retry On Fail max: ${core.succeeded} of ${core.items}, ${core.requests} requests, ${pct(core.status429, core.requests)} 429s, ${s(core.durationMs)}`;
	return [
		{ scenario, goal: ISSUE36_TOKEN_GOALS[0], measured: `${r.succeeded} of ${r.items} (${r.errorOutput} on the error output); ${coreSide}`, status: judged(allDone), issueGoal: true },
		{
			scenario,
			goal: ISSUE36_TOKEN_GOALS[1],
			measured: `${pct(r.status429, r.requests)} (${r.status429} of ${r.requests}); the busiest minute at the API ${r.busiestMinuteTokens} tokens of ${settings.tpm}`,
			status: judged(r.status429 <= ISSUE36_GOALS.status429Share * r.requests + EPSILON),
			issueGoal: true,
		},
		{
			scenario,
			goal: ISSUE36_TOKEN_GOALS[2],
			// a run that dropped items ends early: its time says nothing of the ideal's
			measured: `${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'}x (${s(r.durationMs)}, ideal ${s(r.idealMs)}: ${r.offeredTokens} tokens at ${settings.tpm} a minute)${allDone ? '' : `, but only ${r.succeeded} of ${r.items} items succeeded`}`,
			status: judged(allDone && ratio <= ISSUE36_GOALS.timeRatio + EPSILON),
			issueGoal: true,
		},
	];
}

function quotaVerdicts({ quota: q }: LlmRun): GoalVerdict[] {
	const scenario = ISSUE36_SCENARIOS.quota;
	const waits = Object.entries(q.othersWaitedMs).filter(([, ms]) => (ms ?? 0) > 0);
	const paused = q.othersWaitedMs.paused ?? 0;
	return [
		{ scenario, goal: ISSUE36_QUOTA_GOALS[0], measured: `${q.quotaRequests} request(s) for the item (${q.quotaStatus ?? '-'})`, status: judged(q.quotaRequests === 1), issueGoal: true },
		{
			scenario,
			goal: ISSUE36_QUOTA_GOALS[1],
			measured: `${q.quotaOnErrorOutput ? 'on the error output' : 'NOT on the error output'}, reason ${q.reason || '-'}: "${q.message}"`,
			status: judged(q.quotaOnErrorOutput && /quota/i.test(q.message)),
			issueGoal: true,
		},
		{
			scenario,
			goal: ISSUE36_QUOTA_GOALS[2],
			measured: `${q.othersSucceeded} of ${q.others} others succeeded, ${q.othersAfterQuota} of their requests after its 429 (the last ${s(q.othersLastRequestAfterQuotaMs)} after it); their waits at the controller: ${waits.length ? waits.map(([reason, ms]) => `${reason} ${ms} ms`).join(', ') : 'none'}`,
			status: judged(paused === 0 && q.othersSucceeded === q.others && q.othersAfterQuota > 0),
			issueGoal: true,
		},
	];
}

export function issue36Verdicts(reading: RealN8nReading): GoalVerdict[] {
	if (!reading.measured) return notMeasured(reading.short);
	const run = reading.results.llm;
	if (run === undefined) return [...notMeasured('no LLM rows in the real-n8n figures').slice(0, -1), queueVerdict(reading.results.llmQueue)];
	if (isSkipped(run)) return [...notMeasured(`skipped (${run.skipped})`).slice(0, -1), queueVerdict(reading.results.llmQueue)];
	return [...tokenVerdicts(run), ...openAiVerdicts(run), ...quotaVerdicts(run), queueVerdict(reading.results.llmQueue)];
}
