/**
 * The token budget of an LLM API (nodes/shared/core/traffic/tokens.ts, limits/tokens.ts): what the
 * headers state, what a request is estimated to count, and the controller's verdicts on an
 * injected clock, with the requests in flight as a store would count them.
 */
import { admit, complete, type Admission, type Lease, type Outcome, type TrafficData, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { demandParts, tokenDemand, tokenUsage, type TokenDemand, type TokenParts } from '../../../nodes/shared/core/traffic/token-estimate';
import { readTokenStatements } from '../../../nodes/shared/core/traffic/token-headers';
import { TOKEN_WINDOW_MS, tokensInFlight, type TokenData } from '../../../nodes/shared/core/traffic/tokens';
import { trafficView } from '../../../nodes/shared/core/traffic/operator';

const T0 = 1_800_000_000_000;
const P: TrafficParams = { window: { ceiling: 1000, mode: 'fixed' }, leaseMs: 600_000 };
const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false };

describe('the token budgets an answer states', () => {
	it("OpenAI's: input and output together; limit, remaining and a reset as a duration", () => {
		const headers = { 'x-ratelimit-limit-tokens': '60000', 'x-ratelimit-remaining-tokens': '59000', 'x-ratelimit-reset-tokens': '1s', 'x-ratelimit-remaining-requests': '499', 'x-ratelimit-reset-requests': '120ms' };
		expect(readTokenStatements(headers, T0)).toEqual([{ kind: 'total', limit: 60000, remaining: 59000, resetAt: T0 + 1000, header: 'x-ratelimit-remaining-tokens' }]);
		expect(readTokenStatements({ ...headers, 'x-ratelimit-reset-tokens': '6m0s' }, T0)[0].resetAt).toBe(T0 + 360_000);
	});

	const reset = new Date(T0 + 20_000).toISOString();
	/** Anthropic's headers of one answer: input and output tokens each apart, and the most restrictive of them as "tokens". */
	const anthropic = {
		'anthropic-ratelimit-input-tokens-limit': '40000',
		'anthropic-ratelimit-input-tokens-remaining': '30000',
		'anthropic-ratelimit-input-tokens-reset': reset,
		'anthropic-ratelimit-output-tokens-limit': '8000',
		'anthropic-ratelimit-output-tokens-remaining': '1000',
		'anthropic-ratelimit-output-tokens-reset': reset,
		'anthropic-ratelimit-tokens-limit': '8000',
		'anthropic-ratelimit-tokens-remaining': '1000',
		'anthropic-ratelimit-tokens-reset': reset,
	};

	it("Anthropic's: the input and the output budget each, the reset a time; its \"tokens\" (the most restrictive of them) is not a third", () => {
		const statements = readTokenStatements(anthropic, T0);
		expect(statements).toHaveLength(2);
		expect(statements).toEqual(
			expect.arrayContaining([
				{ kind: 'input', limit: 40000, remaining: 30000, resetAt: T0 + 20_000, header: 'anthropic-ratelimit-input-tokens-remaining' },
				{ kind: 'output', limit: 8000, remaining: 1000, resetAt: T0 + 20_000, header: 'anthropic-ratelimit-output-tokens-remaining' },
			]),
		);
		// alone, "tokens" is taken as input and output together
		const alone = Object.fromEntries(Object.entries(anthropic).filter(([name]) => name.startsWith('anthropic-ratelimit-tokens')));
		expect(readTokenStatements(alone, T0)).toEqual([{ kind: 'total', limit: 8000, remaining: 1000, resetAt: T0 + 20_000, header: 'anthropic-ratelimit-tokens-remaining' }]);
	});

	it('none without a reset, or for a request quota only', () => {
		expect(readTokenStatements({ 'x-ratelimit-remaining-tokens': '100' }, T0)).toEqual([]);
		expect(readTokenStatements({ 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-reset-requests': '1s' }, T0)).toEqual([]);
	});
});

describe("a request's demand, before it is sent", () => {
	it("OpenAI chat: the messages' characters and max_tokens (or max_completion_tokens)", () => {
		const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(400) }], max_tokens: 300 };
		const demand = tokenDemand(JSON.stringify(body))!;
		expect(demand).toEqual({ chars: JSON.stringify(body.messages).length, output: 300, model: 'gpt-4o' });
		expect(demandParts(demand)).toEqual({ input: Math.ceil(demand.chars / 4), output: 300 });
		expect(tokenDemand({ ...body, max_tokens: undefined, max_completion_tokens: 50 })?.output).toBe(50);
	});

	it("Anthropic's system and messages, OpenAI's Responses input, Gemini's contents and maxOutputTokens", () => {
		expect(tokenDemand({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1024 })).toEqual({ chars: 'be brief'.length + JSON.stringify([{ role: 'user', content: 'hi' }]).length, output: 1024 });
		expect(tokenDemand({ model: 'gpt-5', input: 'hello', max_output_tokens: 10 })).toEqual({ chars: 5, output: 10, model: 'gpt-5' });
		expect(tokenDemand({ contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 64 } })?.output).toBe(64);
	});

	it('no demand for a body that is no LLM request', () => {
		expect(tokenDemand({ amount: 100, currency: 'eur' })).toBeUndefined();
		expect(tokenDemand('not json')).toBeUndefined();
		expect(tokenDemand(undefined)).toBeUndefined();
	});

	it("an answer's usage: OpenAI chat, Responses and Anthropic, Gemini", () => {
		expect(tokenUsage({ usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 } })).toEqual({ input: 12, output: 30 });
		expect(tokenUsage(JSON.stringify({ usage: { input_tokens: 7, output_tokens: 3 } }))).toEqual({ input: 7, output: 3 });
		expect(tokenUsage({ usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 9 } })).toEqual({ input: 5, output: 9 });
		expect(tokenUsage({ id: 'x' })).toBeUndefined();
	});
});

/** A controller driven by hand: requests in flight counted as a store would. */
class Api {
	data: TrafficData | undefined;
	private readonly leases = new Map<string, Lease>();
	private n = 0;

	constructor(private readonly params: TrafficParams) {}

	ask(now: number, tokens: TokenDemand | undefined): Admission & { id: string } {
		const id = `r${++this.n}`;
		const step = admit(this.data, { count: this.leases.size, soonest: Infinity }, now, { id, retry: false, paced: false, ...(tokens ? { tokens } : {}) }, this.params);
		if (step.changed) this.data = step.data;
		if (step.result.go) this.leases.set(id, step.result.lease);
		return { ...step.result, id };
	}

	answer(now: number, id: string, outcome: Outcome): void {
		const lease = this.leases.get(id)!;
		this.data = complete(this.data, { count: this.leases.size, soonest: Infinity }, now, lease, outcome, this.params).data;
		this.leases.delete(id);
	}
}

/** Tokens counted for input only. */
const input = (tokens: number): TokenParts => ({ input: tokens, output: 0 });

/** A demand that counts `tokens` at 4 characters a token with no output. */
const costing = (tokens: number): TokenDemand => ({ chars: tokens * 4, output: 0 });

describe('the controller with a token budget', () => {
	it('no budget known: LLM requests go, counted in flight; others write nothing for tokens', () => {
		const api = new Api(P);
		expect(api.ask(T0, undefined).go).toBe(true);
		expect(api.data?.tokens).toBeUndefined();
		const first = api.ask(T0, costing(50_000));
		const second = api.ask(T0, costing(50_000));
		expect(first.go && second.go).toBe(true);
		expect(tokensInFlight(api.data!.tokens!)).toBe(100_000);
		api.answer(T0 + 10, first.id, { ...OK, tokens: { counted: input(50_000) } });
		expect(tokensInFlight(api.data!.tokens!)).toBe(50_000);
	});

	it("the user's Token Limit: never more than the limit's estimated tokens in any 60 s, and a request waits until enough of the minute has left", () => {
		const api = new Api({ ...P, tokenLimitPerMinute: 10_000 });
		const sent: Array<[number, number]> = [];
		let now = T0;
		// 40 requests of 3,000 tokens, each asked again when it was told to
		for (let k = 0; k < 40; k++) {
			for (;;) {
				const asked = api.ask(now, costing(3000));
				if (asked.go) {
					sent.push([now, asked.tokens!.input]);
					api.answer(now + 500, asked.id, OK);
					break;
				}
				expect(asked.reason).toBe('tokens');
				expect(asked.until).toBeGreaterThan(now);
				now = asked.until!;
			}
		}
		for (const [start] of sent) expect(sent.filter(([t]) => t >= start && t < start + 60_000).reduce((sum, [, tokens]) => sum + tokens, 0)).toBeLessThanOrEqual(10_000);
		// three a minute (9,000 of 10,000), at most 66.7 s for each three: at least 90 % of the limit
		const minutes = (sent.at(-1)![0] - sent[0][0]) / 60_000;
		expect((40 * 3000) / (minutes + 1) / 10_000).toBeGreaterThan(0.75);
		expect(TOKEN_WINDOW_MS).toBe(66_667);
	});

	it("the server's word: a request that does not fit what is left waits for the reset it stated; one that fits goes", () => {
		const api = new Api(P);
		const first = api.ask(T0, costing(1000));
		api.answer(T0 + 100, first.id, { ...OK, tokens: { counted: input(0), statements: [{ kind: 'total', limit: 60_000, remaining: 5000, resetAt: T0 + 20_000, header: 'x-ratelimit-remaining-tokens' }] } });
		const big = api.ask(T0 + 200, costing(6000));
		expect(big).toMatchObject({ go: false, reason: 'tokens', until: T0 + 20_000, wake: 'time' });
		const small = api.ask(T0 + 300, costing(4000));
		expect(small.go).toBe(true);
		// 1,000 left of what the server said: the next 2,000 waits for the reset too
		expect(api.ask(T0 + 400, costing(2000))).toMatchObject({ go: false, until: T0 + 20_000 });
		// at the reset the budget is whole again: the word rolls over to the stated 60,000
		expect(api.ask(T0 + 20_000, costing(50_000)).go).toBe(true);
		expect(api.ask(T0 + 20_001, costing(20_000))).toMatchObject({ go: false, until: T0 + 80_000 });
		expect(trafficView('k', api.data!, 0, T0 + 20_002).tokens).toMatchObject({ perMinute: 60_000, remaining: 10_000 });
	});

	it('requests still in flight when the server answered are taken off what it said is left', () => {
		const api = new Api(P);
		const a = api.ask(T0, costing(1000));
		const b = api.ask(T0, costing(3000));
		expect(a.go && b.go).toBe(true);
		// a's answer: 5,000 left, counted before b arrived; b's 3,000 are in flight
		api.answer(T0 + 100, a.id, { ...OK, tokens: { counted: input(1000), statements: [{ kind: 'total', limit: 60_000, remaining: 5000, resetAt: T0 + 30_000, header: 'x-ratelimit-remaining-tokens' }] } });
		expect(api.ask(T0 + 200, costing(2500))).toMatchObject({ go: false, reason: 'tokens' });
		expect(api.ask(T0 + 300, costing(2000)).go).toBe(true);
	});

	it("an answer that brings an older word (its request was counted before others whose answers came first) gives back nothing they spent", () => {
		const api = new Api(P);
		const word = (remaining: number, resetAt: number) => ({ kind: 'total' as const, limit: 60_000, remaining, resetAt, header: 'x-ratelimit-remaining-tokens' });
		const slow = api.ask(T0, costing(8000));
		const quick = api.ask(T0 + 500, costing(8000));
		expect(slow.go && quick.go).toBe(true);
		// the server counted slow at T0 (52,000 left, whole at T0 + 60 s), quick at T0 + 500 (44,000 left); quick answers
		// first, with slow in flight: 36,000 (slow's 8,000 taken off twice errs on the side of waiting)
		api.answer(T0 + 1500, quick.id, { ...OK, tokens: { counted: input(8000), statements: [word(44_000, T0 + 60_500)] } });
		expect(trafficView('k', api.data!, 0, T0 + 1501).tokens).toMatchObject({ remaining: 36_000 });
		// slow's answer comes 3 s after its request, with the word of T0: 52,000, less nothing in flight now. Taken,
		// it would give back the 8,000 quick spent
		api.answer(T0 + 3000, slow.id, { ...OK, tokens: { counted: input(8000), statements: [word(52_000, T0 + 60_000)] } });
		expect(trafficView('k', api.data!, 0, T0 + 3001).tokens).toMatchObject({ remaining: 36_000, resetAt: new Date(T0 + 60_500).toISOString() });
		expect(api.ask(T0 + 3002, costing(37_000))).toMatchObject({ go: false, reason: 'tokens', until: T0 + 60_500 });
		// a later count (a later reset) is taken, whatever it says
		const next = api.ask(T0 + 3003, costing(1000));
		api.answer(T0 + 4000, next.id, { ...OK, tokens: { counted: input(1000), statements: [word(48_000, T0 + 63_003)] } });
		expect(trafficView('k', api.data!, 0, T0 + 4001).tokens).toMatchObject({ remaining: 48_000 });
	});

	it("a word is its model's (OpenAI and Anthropic limit each model apart): one model's spent budget holds back none of another's requests; the user's Token Limit is the API's", () => {
		const api = new Api(P);
		const word = (remaining: number, resetAt: number) => ({ kind: 'total' as const, limit: 60_000, remaining, resetAt, header: 'x-ratelimit-remaining-tokens' });
		const mini = { ...costing(1000), model: 'gpt-4o-mini' };
		const big = { ...costing(1000), model: 'gpt-4o' };
		const first = api.ask(T0, mini);
		api.answer(T0 + 100, first.id, { ...OK, tokens: { counted: input(1000), model: 'gpt-4o-mini', statements: [word(500, T0 + 30_000)] } });
		// gpt-4o-mini has 500 left until T0 + 30 s; gpt-4o has said nothing
		expect(api.ask(T0 + 200, mini)).toMatchObject({ go: false, reason: 'tokens', until: T0 + 30_000 });
		expect(api.ask(T0 + 300, big).go).toBe(true);
		expect(trafficView('k', api.data!, 1, T0 + 301).tokens).toMatchObject({ model: 'gpt-4o-mini', remaining: 500, perMinute: 60_000, inFlight: 1000 });
		// with a Token Limit of 2,500 for the API, the two models' requests count together
		const limited = new Api({ ...P, tokenLimitPerMinute: 2500 });
		expect(limited.ask(T0, mini).go && limited.ask(T0, big).go).toBe(true);
		expect(limited.ask(T0 + 1, { ...costing(1000), model: 'o3' })).toMatchObject({ go: false, reason: 'tokens' });
	});

	it("without the server's word, a usage over the estimate counts in the minute, one under it gives nothing back; the answers teach the characters per token", () => {
		const api = new Api({ ...P, tokenLimitPerMinute: 10_000 });
		const first = api.ask(T0, { chars: 32_000, output: 0 });
		expect(first.go && first.tokens).toEqual(input(8000));
		// it used 2,000 (16 characters a token): the minute still counts 8,000
		api.answer(T0 + 100, first.id, { ...OK, tokens: { counted: input(8000), chars: 32_000, usage: { input: 2000, output: 0 } } });
		expect(api.data?.tokens?.charsPerToken).toBe(16);
		// at 16 characters a token, 32,000 characters are 2,000 tokens: it fits the 2,000 left
		const second = api.ask(T0 + 200, { chars: 32_000, output: 0 });
		expect(second.go && second.tokens).toEqual(input(2000));
		expect(api.ask(T0 + 300, { chars: 16, output: 0 })).toMatchObject({ go: false, reason: 'tokens' });
		// a usage over its estimate: the difference counts too (the minute is full until the first leaves)
		const api2 = new Api({ ...P, tokenLimitPerMinute: 10_000 });
		const under = api2.ask(T0, costing(4000));
		api2.answer(T0 + 100, under.id, { ...OK, tokens: { counted: input(4000), usage: { input: 9000, output: 500 } } });
		expect(api2.ask(T0 + 200, costing(600))).toMatchObject({ go: false, reason: 'tokens' });
		expect(api2.ask(T0 + 200, costing(500)).go).toBe(true);
	});

	it('a request larger than a whole minute goes when the minute is empty (or the budget whole), and does not wait forever', () => {
		const api = new Api({ ...P, tokenLimitPerMinute: 1000 });
		const huge = api.ask(T0, costing(50_000));
		expect(huge.go && huge.tokens).toEqual(input(50_000));
		const next = api.ask(T0 + 1, costing(10));
		expect(next).toMatchObject({ go: false, reason: 'tokens' });
		if (!next.go) expect(next.until! - T0).toBeLessThanOrEqual(TOKEN_WINDOW_MS);
		// under the server's word: at its reset, when the budget is whole
		const server = new Api(P);
		const first = server.ask(T0, costing(10));
		server.answer(T0 + 10, first.id, { ...OK, tokens: { counted: input(10), statements: [{ kind: 'total', limit: 8000, remaining: 7990, resetAt: T0 + 60_000, header: 'x-ratelimit-remaining-tokens' }] } });
		expect(server.ask(T0 + 20, costing(9000))).toMatchObject({ go: false, reason: 'tokens', until: T0 + 60_000 });
		expect(server.ask(T0 + 60_000, costing(9000)).go).toBe(true);
	});

	it("Anthropic's input and output budgets apart: a request goes when its input fits the input budget and the output it may write fits the output budget", () => {
		const api = new Api(P);
		const reset = T0 + 30_000;
		const statements = (input: number, output: number, resetAt = reset) => [
			{ kind: 'input' as const, limit: 40_000, remaining: input, resetAt, header: 'anthropic-ratelimit-input-tokens-remaining' },
			{ kind: 'output' as const, limit: 8000, remaining: output, resetAt, header: 'anthropic-ratelimit-output-tokens-remaining' },
		];
		const model = 'claude-sonnet-4-5';
		const ask = (now: number, inputTokens: number, maxTokens: number) => api.ask(now, { chars: inputTokens * 4, output: maxTokens, model });
		const first = ask(T0, 1000, 500);
		api.answer(T0 + 100, first.id, { ...OK, tokens: { counted: { input: 1000, output: 500 }, model, statements: statements(30_000, 2000) } });
		// 5,000 in and up to 1,000 out: fits both, though 6,000 in all is more than the 2,000 output tokens left
		const fits = ask(T0 + 200, 5000, 1000);
		expect(fits.go && fits.tokens).toEqual({ input: 5000, output: 1000 });
		// the output budget has 1,000 left: 1,500 more may not be written before the reset
		expect(ask(T0 + 300, 100, 1500)).toMatchObject({ go: false, reason: 'tokens', until: reset });
		// the input budget has 25,000 left
		expect(ask(T0 + 400, 26_000, 10)).toMatchObject({ go: false, reason: 'tokens', until: reset });
		expect(ask(T0 + 500, 20_000, 10).go).toBe(true);
		// the operator sees the budget with the smallest share left: output, 990 of 8,000 (input: 5,000 of 40,000)
		expect(trafficView('k', api.data!, 2, T0 + 501).tokens).toMatchObject({ kind: 'output', remaining: 990, perMinute: 8000, model });
		// a later count, while the last is in flight: what it says is left, less that one's input and output each
		api.answer(T0 + 600, fits.id, { ...OK, tokens: { counted: { input: 5000, output: 1000 }, model, statements: statements(38_000, 1500, reset + 2000) } });
		expect(trafficView('k', api.data!, 1, T0 + 601).tokens).toMatchObject({ kind: 'output', remaining: 1490 });
		expect(ask(T0 + 700, 100, 1491)).toMatchObject({ go: false, reason: 'tokens', until: reset + 2000 });
		expect(ask(T0 + 800, 17_000, 1490).go).toBe(true);
	});

	it('a budget kept by a version before kinds (one word per model, a number in flight: Redis across an upgrade) is learned again, not misread', () => {
		const api = new Api(P);
		api.ask(T0, undefined);
		const old = { models: { '': { stated: 60_000, word: { remaining: 0, resetAt: T0 + 30_000, sentSince: 0 }, inFlight: 5000 } }, sent: [] };
		api.data = { ...api.data!, tokens: old as unknown as TokenData };
		expect(trafficView('k', api.data, 0, T0 + 1).tokens).toMatchObject({ remaining: null, inFlight: 0 });
		const first = api.ask(T0 + 2, costing(1000));
		expect(first.go).toBe(true);
		api.answer(T0 + 3, first.id, { ...OK, tokens: { counted: input(1000), statements: [{ kind: 'total', limit: 60_000, remaining: 500, resetAt: T0 + 40_000, header: 'x-ratelimit-remaining-tokens' }] } });
		expect(api.ask(T0 + 4, costing(1000))).toMatchObject({ go: false, reason: 'tokens', until: T0 + 40_000 });
	});

	it("a 429 for tokens, timed by the budget's reset and stating it, pauses nothing: the budget holds what does not fit until the reset, and lets what fits go; with Retry-After the API is paused", () => {
		const statements = [{ kind: 'total' as const, limit: 60_000, remaining: 2000, resetAt: T0 + 60_000, header: 'x-ratelimit-remaining-tokens' }];
		const throttle = (header: string): Outcome => ({ success: false, outageFailure: false, overload: false, throttled: true, serverWait: { ms: 60_000, header }, tokens: { counted: input(5000), statements } });
		const api = new Api(P);
		const refused = api.ask(T0, costing(5000));
		api.answer(T0 + 10, refused.id, throttle('x-ratelimit-reset-tokens'));
		expect(api.data?.pausedUntil).toBe(0);
		expect(api.ask(T0 + 20, costing(5000))).toMatchObject({ go: false, reason: 'tokens', until: T0 + 60_000 });
		expect(api.ask(T0 + 30, costing(1500)).go).toBe(true);
		expect(api.ask(T0 + 40, undefined).go).toBe(true);
		// the same answer with Retry-After: the server asked everyone to wait
		const told = new Api(P);
		const first = told.ask(T0, costing(5000));
		told.answer(T0 + 10, first.id, throttle('retry-after'));
		expect(told.ask(T0 + 20, costing(1500))).toMatchObject({ go: false, reason: 'paused' });
	});

	it('requests with no demand (not LLM requests) pass by the budget', () => {
		const api = new Api({ ...P, tokenLimitPerMinute: 1000 });
		expect(api.ask(T0, costing(1000)).go).toBe(true);
		expect(api.ask(T0 + 1, undefined).go).toBe(true);
	});
});
