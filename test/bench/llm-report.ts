/** BENCHMARKS.md's LLM section (section 8, issue 36): token budgets in a real n8n (test/bench/real-n8n-llm.mjs). */
import { markdownTable } from '../support/doc-section';
import { isSkipped, type LlmTokenRow, type RealN8nResults } from './real-n8n-results';

const sec = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
const pct = (part: number, whole: number) => (whole > 0 ? `${Math.round((1000 * part) / whole) / 10}%` : '-');
const ratio = (row: LlmTokenRow) => (row.durationMs === null ? '-' : `${(row.durationMs / row.idealMs).toFixed(2)}x`);
const reasons = (row: LlmTokenRow) => (row.errorOutput === 0 ? '-' : Object.entries(row.errorReasons ?? {}).map(([reason, n]) => `${reason} ${n}`).join(', ') || '-');

/** The queue-mode rows' paragraph (issue 36): both nodes, two workers, one API. */
function queueParagraph(run: RealN8nResults['llmQueue']): string {
	if (run === undefined) return '';
	if (isSkipped(run)) return `\n\n*Queue mode*: skipped (${run.skipped}).`;
	const { api } = run;
	return `\n\n*Queue mode* (2 workers, the state in Redis): one API like the above, Resilient HTTP Request (its *API Scope* set) takes the even items and n8n's OpenAI node behind Wait for Room (the same *API Scope*) the odd ones, both webhook calls at once. The API got ${api.requests} requests, ${api.status429} of them 429s (${pct(api.status429, api.requests)}); its busiest minute held ${api.busiestMinuteTokens} tokens; all done in ${sec(api.durationMs)} (ideal ${sec(api.idealMs)}).

${markdownTable(
		['Row', 'Succeeded', 'Requests', '429s', 'Time'],
		[run.resilient, run.openai].map((r) => [r.name, `${r.succeeded} of ${r.items}`, r.requests, r.status429, sec(r.durationMs)]),
	)}`;
}

export function llmSection(run: RealN8nResults['llm'], queue?: RealN8nResults['llmQueue']): string {
	if (run === undefined) return "Not in this run's figures.";
	if (isSkipped(run)) return `Skipped: ${run.skipped}.`;
	const p = run.settings;
	const q = run.quota;
	const waits = Object.entries(q.othersWaitedMs).filter(([, ms]) => (ms ?? 0) > 0);
	return `One n8n (regular mode). Each row calls a local OpenAI-compatible API of its own (\`POST /v1/chat/completions\`,
test/bench/llm-upstream.mjs): ${p.tpm.toLocaleString('en-US')} tokens and ${p.rpm} requests in any sliding minute, a request counted on
arrival as its prompt (its messages' characters / 4) plus \`max_tokens\`; every answer states OpenAI's
\`x-ratelimit-{limit,remaining,reset}-{requests,tokens}\`, a refused request gets OpenAI's 429 body
(\`rate_limit_exceeded\`, no Retry-After), a 200 comes after ${p.latencyMs[0]} to ${p.latencyMs[1]} ms. One webhook call brings ${p.items} chat
requests of ${p.minTokens} to ${p.maxTokens} tokens each (seed ${p.seed}; ${Math.round(p.outputShare * 100)}% of each as \`max_tokens\`), one execution per
node, every row at the same time against its own API, error output on. Resilient HTTP Request runs at its
defaults (no *Token Limit*: it learns the budget from the headers); HTTP Request with *Retry On Fail* at its
maximum; n8n's own OpenAI node (Message a Model, the Responses API: \`POST /v1/responses\`, counted the same way,
its credential's Base URL at the row's API) in *Loop Over Items* of 1 behind Traffic Control's *Wait for Room*
(*Token Limit* ${p.tpm.toLocaleString('en-US')}, *Estimated Tokens* the item's tokens) and *Report Outcome*, its failed items round again through
Backoff Delay, as example 11 is wired; and the OpenAI node alone. An OpenAI node row counts an item as succeeded
when the API answered it. The ideal is every item's tokens once at the limit (tokens / limit); a time runs from the webhook
call to the execution's end.

${markdownTable(
	['Row', 'Succeeded', 'Error output (reasons)', 'Requests', '429s', '429 share', 'Most requests for one item', 'Tokens admitted (offered)', 'Busiest minute (tokens)', 'Time', 'Ideal', 'Time / ideal'],
	[run.resilient, run.core, ...[run.resilientDeadline, run.openaiGuarded, run.openai].filter((r): r is LlmTokenRow => r !== undefined)].map((r) => [
		r.name,
		`${r.succeeded} of ${r.items}`,
		`${r.errorOutput} (${reasons(r)})`,
		r.requests,
		r.status429,
		pct(r.status429, r.requests),
		r.mostRequestsPerItem,
		`${r.admittedTokens} (${r.offeredTokens})`,
		r.busiestMinuteTokens,
		sec(r.durationMs),
		sec(r.idealMs),
		ratio(r),
	]),
)}${run.resilient.errorSample ? `\n\nThe first failed item of the defaults' row said: "${run.resilient.errorSample}".` : ''}

*Quota*: one execution of ${q.others + 1} items to another such API, Resilient HTTP Request at its defaults: the first item's
model answers OpenAI's \`insufficient_quota\` 429, the ${q.others} others succeed. The quota item got ${q.quotaRequests} request(s)
(${q.quotaStatus ?? '-'}) and went to the ${q.quotaOnErrorOutput ? 'error output' : 'success output'} with reason \`${q.reason || '-'}\`: "${q.message}". Of the others,
${q.othersSucceeded} succeeded; ${q.othersAfterQuota} of their requests reached the API after the quota item's 429 (the last ${sec(q.othersLastRequestAfterQuotaMs)}
after it), and their waits at the API's controller were ${waits.length ? waits.map(([reason, ms]) => `${reason} ${ms} ms`).join(', ') : 'none'} (a pause would show as *paused*).${queueParagraph(queue)}`;
}
