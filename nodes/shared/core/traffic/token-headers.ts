/**
 * The token budgets an LLM API states on its answers, successes included: how many tokens it still
 * accepts, its limit per minute, and when the count is whole again. Read from
 *
 *   x-ratelimit-{limit,remaining,reset}-tokens      OpenAI (reset as a duration: "6m0s", "1.5s",
 *                                                   "120ms"), Azure OpenAI, Groq, OpenRouter-style
 *                                                   APIs: input and output tokens together
 *   anthropic-ratelimit-{input-tokens,output-tokens}-{limit,remaining,reset}
 *                                                   Anthropic (reset as an RFC 3339 time): input
 *                                                   and output tokens each apart
 *   anthropic-ratelimit-tokens-{limit,remaining,reset}
 *                                                   Anthropic's "most restrictive limit currently in
 *                                                   effect": taken as input and output together,
 *                                                   only when the answer states neither apart
 *
 * Each budget is kept and checked apart (tokens.ts): a request must fit all of them. Gemini states
 * none (its RESOURCE_EXHAUSTED 429 carries a RetryInfo wait, which the pause obeys). Pure: the
 * current time is passed in.
 */
import { headerCount, normalizeHeaders, parseResetValue, type HeaderBag } from '../retry-after';
import type { TokenKind } from './token-estimate';

export interface TokenStatement {
	/** What the budget counts: input and output together, or one of them. */
	kind: TokenKind;
	/** Tokens a minute the API grants (its `-limit` header); undefined when it states none. */
	limit?: number;
	/** Tokens it still accepts now. */
	remaining: number;
	/** When the count is whole again (epoch ms): OpenAI's and Anthropic's reset. */
	resetAt: number;
	/** The header the remaining count came from. */
	header: string;
}

/** Header names that hold a remaining token count, what they count, and how to name their limit and reset. */
const TOKEN_REMAINING: readonly { pattern: RegExp; kind: (match: RegExpExecArray) => TokenKind; limit: string; reset: string; resetPattern: RegExp }[] = [
	// OpenAI: x-ratelimit-remaining-tokens (the family's -requests is a request quota, quota-headers.ts)
	{ pattern: /^x-ratelimit-remaining-tokens$/, kind: () => 'total', limit: 'x-ratelimit-limit-tokens', reset: 'x-ratelimit-reset-tokens', resetPattern: /^x-ratelimit-reset-tokens$/ },
	// Anthropic: anthropic-ratelimit-tokens-remaining, -input-tokens-remaining, -output-tokens-remaining
	{ pattern: /^anthropic-ratelimit-((input-|output-)?tokens)-remaining$/, kind: (m) => (m[2] === 'input-' ? 'input' : m[2] === 'output-' ? 'output' : 'total'), limit: 'anthropic-ratelimit-$1-limit', reset: 'anthropic-ratelimit-$1-reset', resetPattern: /^anthropic-ratelimit-(input-|output-)?tokens-reset$/ },
];

/** The header names the reset of a token budget: a wait it times is the budget's (limits/pause.ts). */
export function isTokenResetHeader(name: string): boolean {
	return TOKEN_REMAINING.some((family) => family.resetPattern.test(name));
}

/** The share of its limit a statement leaves; a count without its limit: whole, or none when spent. */
function shareLeft(statement: TokenStatement): number {
	return statement.limit !== undefined ? statement.remaining / statement.limit : statement.remaining > 0 ? 1 : 0;
}

/**
 * The budgets an answer states, one per kind (none: it states none, or no reset for it). Two of one
 * kind (two families at once): the smaller share left. Input and output apart make a total
 * statement of the same answer redundant: Anthropic's tokens-* repeat the most restrictive of them.
 */
export function readTokenStatements(headers: HeaderBag | undefined, nowMs: number): TokenStatement[] {
	const h = normalizeHeaders(headers);
	const byKind = new Map<TokenKind, TokenStatement>();
	for (const name of Object.keys(h)) {
		for (const family of TOKEN_REMAINING) {
			const match = family.pattern.exec(name);
			if (!match) continue;
			const remaining = headerCount(h[name]);
			const resetName = family.reset.replace('$1', match[1] ?? '');
			const reset = h[resetName] === undefined ? undefined : parseResetValue(h[resetName], nowMs);
			if (remaining === undefined || reset === undefined) continue;
			const limit = headerCount(h[family.limit.replace('$1', match[1] ?? '')]);
			const kind = family.kind(match);
			const statement: TokenStatement = { kind, remaining, resetAt: Math.min(nowMs + Math.max(0, reset), Number.MAX_SAFE_INTEGER), header: name, ...(limit !== undefined && limit > 0 ? { limit } : {}) };
			const known = byKind.get(kind);
			if (known === undefined || shareLeft(statement) < shareLeft(known)) byKind.set(kind, statement);
		}
	}
	if (byKind.has('input') || byKind.has('output')) byKind.delete('total');
	return [...byKind.values()];
}
