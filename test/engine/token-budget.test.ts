/**
 * An LLM API's token budget in n8n's engine, on the virtual clock, against a local server that
 * limits tokens as OpenAI's rate-limit docs describe: a request counts its prompt plus max_tokens
 * when it arrives, against a limit per minute (here a sliding minute, the strictest reading), and
 * every answer states x-ratelimit-{limit,remaining,reset}-tokens; a request that does not fit gets a
 * 429 with those headers and no Retry-After; and one limited as Anthropic's (input and output tokens
 * each apart). The node's defaults, and the user's Token Limit for an API that states nothing. The limit's own arithmetic is the unit tests' (test/unit/traffic/tokens.test.ts).
 */
import type { IDataObject } from 'n8n-workflow';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import type { RecordedRequest } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();
const MINUTE = 60_000;

/** What the server counts for a request: its messages' text at 4 characters a token, plus max_tokens. */
function countOf(body: { messages: Array<{ content: string }>; max_tokens: number }): { prompt: number; total: number } {
	const prompt = Math.ceil(body.messages.reduce((sum, m) => sum + m.content.length, 0) / 4);
	return { prompt, total: prompt + body.max_tokens };
}

/** A chat-completions server limited to `limit` tokens in any minute (prompt + max_tokens counted on arrival). */
async function llmApi(limit: number, now: () => number, { stateHeaders = true } = {}) {
	const counted: Array<[at: number, tokens: number]> = [];
	const refused: number[] = [];
	const used = (t: number) => counted.filter(([at]) => at > t - MINUTE).reduce((sum, [, n]) => sum + n, 0);
	const headers = (t: number): Record<string, string> => {
		if (!stateHeaders) return {};
		const live = counted.filter(([at]) => at > t - MINUTE);
		const resetMs = live.length > 0 ? Math.max(...live.map(([at]) => at)) + MINUTE - t : 0;
		return { 'x-ratelimit-limit-tokens': String(limit), 'x-ratelimit-remaining-tokens': String(Math.max(0, limit - used(t))), 'x-ratelimit-reset-tokens': `${resetMs}ms` };
	};
	const api = await server((request: RecordedRequest) => {
		const t = now();
		const body = JSON.parse(request.body) as { messages: Array<{ content: string }>; max_tokens: number };
		const { prompt, total } = countOf(body);
		if (used(t) + total > limit) {
			refused.push(t);
			return { status: 429, headers: headers(t), body: { error: { message: 'Rate limit reached for tokens per min (TPM)', type: 'tokens', code: 'rate_limit_exceeded' } } };
		}
		counted.push([t, total]);
		return { status: 200, headers: headers(t), body: { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: prompt, completion_tokens: 20, total_tokens: prompt + 20 } } };
	}, now);
	/** The most the server counted in any minute (it refuses beyond its limit: this shows how close the node came). */
	const busiestMinute = () => Math.max(0, ...counted.map(([start]) => counted.filter(([at]) => at >= start && at < start + MINUTE).reduce((sum, [, n]) => sum + n, 0)));
	return { api, counted, refused, busiestMinute };
}

/** 40 chat requests of 1,000 to 8,000 tokens (prompt + max_tokens), 200,000 in all. */
const ITEMS = Array.from({ length: 40 }, (_, k) => ({ json: { k, prompt: 'word '.repeat(200 + (k % 8) * 700), maxTokens: 750 } }));
const TOTAL = ITEMS.reduce((sum, { json }) => sum + countOf({ messages: [{ content: json.prompt }], max_tokens: json.maxTokens }).total, 0);

function chatWorkflow(url: string, sharedLimits: IDataObject = {}) {
	return httpWorkflow({
		method: 'POST',
		url,
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: $json.prompt }], max_tokens: $json.maxTokens }) }}',
		sharedLimits,
	});
}

/**
 * A messages server limited as Anthropic's rate-limit docs describe: input tokens and output tokens
 * a minute each (here 40,000 and 8,000, as a low tier), the input counted on arrival and the output
 * by max_tokens on arrival, each in a sliding minute; every answer states
 * anthropic-ratelimit-{input-tokens,output-tokens,tokens}-{limit,remaining,reset} (the reset an RFC
 * 3339 time; "tokens" the most restrictive of the two), and a refusal is a 429 with retry-after.
 */
async function anthropicApi(limits: { input: number; output: number }, now: () => number) {
	const counted: Array<[at: number, input: number, output: number]> = [];
	const refused: number[] = [];
	const used = (t: number, part: 1 | 2) => counted.filter(([at]) => at > t - MINUTE).reduce((sum, c) => sum + c[part], 0);
	const headers = (t: number): Record<string, string> => {
		const live = counted.filter(([at]) => at > t - MINUTE);
		const reset = new Date(live.length > 0 ? Math.max(...live.map(([at]) => at)) + MINUTE : t).toISOString();
		const input = { limit: limits.input, remaining: Math.max(0, limits.input - used(t, 1)) };
		const output = { limit: limits.output, remaining: Math.max(0, limits.output - used(t, 2)) };
		const tightest = input.remaining / input.limit <= output.remaining / output.limit ? input : output;
		const family = (name: string, budget: { limit: number; remaining: number }) => ({ [`anthropic-ratelimit-${name}-limit`]: String(budget.limit), [`anthropic-ratelimit-${name}-remaining`]: String(budget.remaining), [`anthropic-ratelimit-${name}-reset`]: reset });
		return { ...family('input-tokens', input), ...family('output-tokens', output), ...family('tokens', tightest) };
	};
	const api = await server((request: RecordedRequest) => {
		const t = now();
		const body = JSON.parse(request.body) as { messages: Array<{ content: string }>; max_tokens: number };
		const { prompt } = countOf(body);
		if (used(t, 1) + prompt > limits.input || used(t, 2) + body.max_tokens > limits.output) {
			refused.push(t);
			return { status: 429, headers: { ...headers(t), 'retry-after': '10' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization' } } };
		}
		counted.push([t, prompt, body.max_tokens]);
		return { status: 200, headers: headers(t), body: { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: prompt, output_tokens: 20 } } };
	}, now);
	return { api, counted, refused };
}

describe('token budgets', () => {
	it("an API that states its token budget (OpenAI's headers), defaults: every item succeeds, at most one 429, within 1.15x of the token-limited time", async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const limit = 40_000;
		const { api, refused, counted } = await llmApi(limit, () => runtime.now());
		const started = runtime.now();
		const run = await runHttp(chatWorkflow(`${api.url}/v1/chat/completions`), ITEMS, runtime, { store: new MemoryStateStore() });
		expect(run.status).toBe('success');
		expect(run.outputOf('HTTP')).toHaveLength(ITEMS.length);
		expect(run.runsOf('Failed')).toBe(0);
		expect(counted).toHaveLength(ITEMS.length);
		expect(refused.length).toBeLessThanOrEqual(1);
		// the token-limited ideal (issue 36): the tokens over the limit, in minutes
		expect(runtime.now() - started).toBeLessThanOrEqual((TOTAL / limit) * MINUTE * 1.15);
	});

	it("Anthropic's input and output budgets apart, defaults: every item succeeds, at most one 429, within 1.15x of the time the tighter of the two allows", async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const limits = { input: 40_000, output: 8000 };
		const { api, refused, counted } = await anthropicApi(limits, () => runtime.now());
		const wf = chatWorkflow(`${api.url}/v1/messages`);
		wf.nodes[2].parameters.jsonBody = '={{ JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: $json.maxTokens, messages: [{ role: "user", content: $json.prompt }] }) }}';
		const started = runtime.now();
		const run = await runHttp(wf, ITEMS, runtime, { store: new MemoryStateStore() });
		expect(run.status).toBe('success');
		expect(run.outputOf('HTTP')).toHaveLength(ITEMS.length);
		expect(run.runsOf('Failed')).toBe(0);
		expect(counted).toHaveLength(ITEMS.length);
		expect(refused.length).toBeLessThanOrEqual(1);
		const input = counted.reduce((sum, [, n]) => sum + n, 0);
		const output = counted.reduce((sum, [, , n]) => sum + n, 0);
		expect(runtime.now() - started).toBeLessThanOrEqual(Math.max(input / limits.input, output / limits.output) * MINUTE * 1.15);
	});

	it('the same API without the token budget (Read Rate-Limit Headers off): the requests go as fast as the window lets them, and many are refused', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const { api, refused } = await llmApi(40_000, () => runtime.now());
		const wf = chatWorkflow(`${api.url}/v1/chat/completions`);
		(wf.nodes[2].parameters.retryOptions as IDataObject) = { ...(wf.nodes[2].parameters.retryOptions as IDataObject), readRateLimitHeaders: false };
		await runHttp(wf, ITEMS, runtime, { store: new MemoryStateStore() });
		expect(refused.length).toBeGreaterThan(10);
	});

	it("an API that states nothing, with the user's Token Limit: the server never counts more than the limit in a minute, and every item succeeds without a 429", async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const limit = 40_000;
		const { api, refused, busiestMinute } = await llmApi(limit, () => runtime.now(), { stateHeaders: false });
		const started = runtime.now();
		const run = await runHttp(chatWorkflow(`${api.url}/v1/chat/completions`, { tokenLimit: limit }), ITEMS, runtime, { store: new MemoryStateStore() });
		expect(run.outputOf('HTTP')).toHaveLength(ITEMS.length);
		expect(refused).toHaveLength(0);
		expect(busiestMinute()).toBeLessThanOrEqual(limit);
		// the estimate counts max_tokens as spent and the JSON around the text (over the server's count
		// until answers teach the ratio), and the window is a minute and a ninth
		expect(runtime.now() - started).toBeLessThanOrEqual((TOTAL / limit) * MINUTE * 1.25);
	});

	it('a Token Limit that is not a number: an error naming the parameter and the item, before any request', async () => {
		const runtime = createVirtualRuntime(7, { sleepsAsTimers: true, noRealTime: true });
		const { api, counted } = await llmApi(40_000, () => runtime.now());
		const run = await runHttp(chatWorkflow(`${api.url}/v1/chat/completions`, { tokenLimit: '={{ "lots" }}' }), ITEMS.slice(0, 2), runtime, { store: new MemoryStateStore() });
		expect(run.error?.message).toMatch(/^Parameter "Token Limit \(Per Minute\)" .*\(item 0\)$/);
		expect(counted).toHaveLength(0);
	});
});
