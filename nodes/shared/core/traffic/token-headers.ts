/**
 * The token budget an LLM API states on its answers, successes included: how many tokens it still
 * accepts, its limit per minute, and when the count is whole again. Read from
 *
 *   x-ratelimit-{limit,remaining,reset}-tokens      OpenAI (reset as a duration: "6m0s", "1.5s",
 *                                                   "120ms"), Azure OpenAI, Groq, OpenRouter-style APIs
 *   anthropic-ratelimit-{tokens,input-tokens,output-tokens}-{limit,remaining,reset}
 *                                                   Anthropic (reset as an RFC 3339 time)
 *
 * Several budgets at once (Anthropic's input and output tokens): the one with the smallest share
 * left binds. Gemini states none (its RESOURCE_EXHAUSTED 429 carries a RetryInfo wait, which the
 * pause obeys). Pure: the current time is passed in.
 */
import { normalizeHeaders, parseResetValue, type HeaderBag } from '../retry-after';

export interface TokenStatement {
	/** Tokens a minute the API grants (its `-limit` header); undefined when it states none. */
	limit?: number;
	/** Tokens it still accepts now. */
	remaining: number;
	/** When the count is whole again (epoch ms): OpenAI's and Anthropic's reset. */
	resetAt: number;
	/** The header the remaining count came from. */
	header: string;
}

/** Header names that hold a remaining token count, and how to name their limit and reset. */
const TOKEN_REMAINING = [
	// OpenAI: x-ratelimit-remaining-tokens (the family's -requests is a request quota, quota-headers.ts)
	{ pattern: /^x-ratelimit-remaining-tokens$/, limit: 'x-ratelimit-limit-tokens', reset: 'x-ratelimit-reset-tokens' },
	// Anthropic: anthropic-ratelimit-tokens-remaining, -input-tokens-remaining, -output-tokens-remaining
	{ pattern: /^anthropic-ratelimit-((?:input-|output-)?tokens)-remaining$/, limit: 'anthropic-ratelimit-$1-limit', reset: 'anthropic-ratelimit-$1-reset' },
];

function count(value: string | undefined): number | undefined {
	if (value === undefined || !/^\s*\d{1,15}\s*$/.test(value)) return undefined;
	return Number(value);
}

/** The token budget that binds first, or undefined when the answer states none (or no reset for it). */
export function readTokenStatement(headers: HeaderBag | undefined, nowMs: number): TokenStatement | undefined {
	const h = normalizeHeaders(headers);
	let binding: TokenStatement | undefined;
	let bindingShare = Infinity;
	for (const name of Object.keys(h)) {
		for (const family of TOKEN_REMAINING) {
			const match = family.pattern.exec(name);
			if (!match) continue;
			const remaining = count(h[name]);
			const resetName = family.reset.replace('$1', match[1] ?? '');
			const reset = h[resetName] === undefined ? undefined : parseResetValue(h[resetName], nowMs);
			if (remaining === undefined || reset === undefined) continue;
			const limit = count(h[family.limit.replace('$1', match[1] ?? '')]);
			const statement: TokenStatement = { remaining, resetAt: Math.min(nowMs + Math.max(0, reset), Number.MAX_SAFE_INTEGER), header: name, ...(limit !== undefined && limit > 0 ? { limit } : {}) };
			// the smallest share left binds; a count without its limit binds only when spent
			const share = statement.limit !== undefined ? remaining / statement.limit : remaining > 0 ? 1 : 0;
			if (binding === undefined || share < bindingShare) {
				binding = statement;
				bindingShare = share;
			}
		}
	}
	return binding;
}
