/**
 * An LLM API's token budget: tokens per minute, shared by every request to the API (limits/tokens.ts
 * is its limit). Pure and plain JSON, kept per API by a store, across executions and workers.
 *
 * Two bounds, both kept:
 * - **The server's word**, per model and kind: OpenAI and Anthropic limit each model apart, and an
 *   answer's headers state the budget of the model it used, so a word is kept by the request's
 *   `model` ('' for a request that names none), with its own requests in flight. OpenAI counts
 *   input and output tokens together; Anthropic counts each apart, with a limit of its own (its
 *   output limit is often a fifth of its input limit), so a word is kept per kind
 *   (token-estimate.ts TokenKind) and a request must fit each: its estimated input against the
 *   input budget, the output it may write against the output budget. An answer that states the
 *   tokens left and their reset (token-headers.ts) is the truth as the server counted: requests go
 *   while the estimated tokens sent since (and those in flight when it answered, which it had not
 *   counted) leave room for the next request's estimate; a request that does not fit waits for the
 *   reset the server stated, nothing else. At that reset the budget is whole again (OpenAI: "the
 *   time until the rate limit resets to its initial state"): the word rolls over to the whole
 *   stated limit for the next minute, until an answer restates it.
 * - **The user's *Token Limit*** (tokens a minute): the tokens estimated in the last minute must
 *   leave room for the request. They are counted in a sliding window of 10 buckets, made 66.7 s long
 *   so that a count leaves it no sooner than 60 s after it was made: a server that counts a sliding
 *   minute never sees more than the limit.
 *
 * A request's cost is its estimate (token-estimate.ts), at the characters per token learned from
 * the answers' usage. The answer corrects: the server's word replaces the count (unless it is older
 * than the word known: staleWord); without it, a
 * usage over the estimate adds the difference to the minute, and a usage under it gives nothing
 * back (OpenAI counts max_tokens on arrival, used or not: giving back sent requests into 429s).
 */
import { addToBucket, currentBucket, liveBuckets, windowEmptyAt, windowTotals, WINDOW_BUCKETS, type Bucket } from './sliding-window';
import { DEFAULT_CHARS_PER_TOKEN, demandParts, tokensOfKind, type TokenDemand, type TokenKind, type TokenParts, type TokenUsage } from './token-estimate';
import type { TokenStatement } from './token-headers';

/** The window of the per-minute count: a count leaves it between 60 s and 66.7 s after it was made. */
export const TOKEN_WINDOW_MS = Math.ceil((60_000 * WINDOW_BUCKETS) / (WINDOW_BUCKETS - 1));

/** How fast the learned characters per token follow new answers (a moving average). */
const RATIO_WEIGHT = 0.3;
/** The ratios accepted: code and CJK text run near 1-2 characters a token, English near 4. */
const MIN_CHARS_PER_TOKEN = 1;
const MAX_CHARS_PER_TOKEN = 16;
/** Models kept apart at most: beyond, the one whose word is oldest and with nothing in flight is dropped. */
const MAX_MODELS = 16;
/** A model's name as kept (a key of the state): at most this long. */
const MAX_MODEL_NAME = 100;

/** The last answer's word: tokens left (less those in flight then) until its reset, and the estimated tokens sent since. */
interface Word {
	remaining: number;
	resetAt: number;
	sentSince: number;
}

/** One budget the server states for a model: its tokens per minute, and its word. */
interface KindBudget {
	/** Its tokens per minute, as its last answer stated (`x-ratelimit-limit-tokens`, `anthropic-ratelimit-output-tokens-limit`). */
	stated?: number;
	word?: Word;
}

/** What the server states for one model (or for the API, ''). */
interface ModelBudget {
	/** Its budgets by what they count: input and output together (OpenAI), or each apart (Anthropic). */
	kinds: Partial<Record<TokenKind, KindBudget>>;
	/** Estimated tokens of its requests admitted and not reported yet. */
	inFlight: TokenParts;
}

export interface TokenData {
	/** The server's word by model ('' for requests that name none). */
	models: Record<string, ModelBudget>;
	/** Estimated tokens of the requests admitted, every model, bucketed over TOKEN_WINDOW_MS (the bucket's first counter): the user's Token Limit is the API's. */
	sent: Bucket[];
	/** Characters per token the answers' usage taught; absent: DEFAULT_CHARS_PER_TOKEN. */
	charsPerToken?: number;
}

export function freshTokens(): TokenData {
	return { models: {}, sent: [] };
}

/** The key a request's model is kept under. */
function modelKey(model: string | undefined): string {
	return (model ?? '').trim().slice(0, MAX_MODEL_NAME);
}

/** A model's budgets by kind, as kept (a state written by a version before kinds has none: it is learned again). */
function kindsOf(budget: ModelBudget | undefined): [TokenKind, KindBudget][] {
	return budget?.kinds ? (Object.entries(budget.kinds) as [TokenKind, KindBudget][]) : [];
}

/** A model's words, whatever their kind. */
function wordsOf(budget: ModelBudget | undefined): Word[] {
	return kindsOf(budget).flatMap(([, kind]) => (kind.word ? [kind.word] : []));
}

function inFlightOf(budget: ModelBudget): TokenParts {
	return typeof budget.inFlight === 'object' && budget.inFlight !== null ? budget.inFlight : { input: 0, output: 0 };
}

/** A copy a step may change in place. */
export function copyTokens(data: TokenData): TokenData {
	const models: Record<string, ModelBudget> = {};
	for (const [name, budget] of Object.entries(data.models ?? {})) {
		const kinds: ModelBudget['kinds'] = {};
		for (const [kind, each] of kindsOf(budget)) kinds[kind] = { ...each, ...(each.word ? { word: { ...each.word } } : {}) };
		models[name] = { kinds, inFlight: { ...inFlightOf(budget) } };
	}
	return { ...data, models, sent: data.sent.map(([n, a, b]): Bucket => [n, a, b]) };
}

/** The budget of `model` (created, mutates). */
function budgetOf(data: TokenData, model: string | undefined): ModelBudget {
	data.models ??= {};
	const name = modelKey(model);
	let budget = data.models[name];
	// one written by a version before kinds is learned again
	if (!budget?.kinds) {
		if (!budget) dropOneModelIfFull(data);
		budget = data.models[name] = { kinds: {}, inFlight: { input: 0, output: 0 } };
	}
	return budget;
}

/** The latest reset of a model's words; -Infinity: none. */
function latestReset(budget: ModelBudget | undefined): number {
	return Math.max(-Infinity, ...wordsOf(budget).map((word) => word.resetAt));
}

function dropOneModelIfFull(data: TokenData): void {
	const names = Object.keys(data.models);
	if (names.length < MAX_MODELS) return;
	const idle = names.filter((name) => tokensOfKind('total', inFlightOf(data.models[name])) <= 0);
	const oldest = idle.sort((a, b) => latestReset(data.models[a]) - latestReset(data.models[b]))[0];
	if (oldest !== undefined) delete data.models[oldest];
}

/** What a request with this demand counts for, by part: its input estimated at the ratio learned, its output as asked. */
export function tokenCost(data: TokenData | undefined, demand: TokenDemand): TokenParts {
	return demandParts(demand, data?.charsPerToken ?? DEFAULT_CHARS_PER_TOKEN);
}

/** Time passed (mutates): a word whose reset passed rolls over to the whole stated limit for the next minute. */
export function settleTokens(data: TokenData, nowMs: number): void {
	for (const budget of Object.values(data.models ?? {})) {
		for (const [, kind] of kindsOf(budget)) {
			const word = kind.word;
			if (!word || word.resetAt > nowMs) continue;
			if (kind.stated === undefined) {
				delete kind.word;
				continue;
			}
			// whole at its reset, and again a minute after each one since
			const minutes = Math.floor((nowMs - word.resetAt) / 60_000) + 1;
			kind.word = { remaining: kind.stated, resetAt: word.resetAt + minutes * 60_000, sentSince: 0 };
		}
	}
}

/** The estimated tokens sent in the last minute (the window ending now). */
function sentInWindow(data: TokenData, nowMs: number): { live: Bucket[]; total: number } {
	const live = liveBuckets(data.sent, currentBucket(data.sent, nowMs, TOKEN_WINDOW_MS));
	return { live, total: Math.max(0, windowTotals(live).a) };
}

/** A budget is known for a request of `model`: the server stated one for it, or the user set a Token Limit. */
export function tokensBounded(data: TokenData | undefined, model: string | undefined, userLimit: number | undefined): boolean {
	return wordsOf(data?.models?.[modelKey(model)]).length > 0 || (userLimit ?? 0) > 0;
}

/**
 * When a request of `model` costing `cost` may go (<= nowMs: now): when each of the server's words
 * for that model has room for its part (or at its reset), and the user's limit has room in the
 * last minute (or when enough of it leaves). A part larger than a whole minute of its budget counts
 * as that minute: it goes when the budget is whole, and does not wait forever.
 */
export function tokensAllowAt(data: TokenData, model: string | undefined, nowMs: number, cost: TokenParts, userLimit: number | undefined): number {
	let at = nowMs;
	for (const [kind, budget] of kindsOf(data.models?.[modelKey(model)])) {
		const word = budget.word;
		if (!word || word.resetAt <= nowMs) continue;
		const need = Math.min(tokensOfKind(kind, cost), budget.stated ?? Infinity, userLimit ?? Infinity);
		if (word.remaining - word.sentSince < need) at = Math.max(at, word.resetAt);
	}
	if (at > nowMs || userLimit === undefined) return at;
	const need = Math.min(tokensOfKind('total', cost), userLimit);
	const { live, total } = sentInWindow(data, nowMs);
	if (total + need <= userLimit) return nowMs;
	// the oldest counts leave first: the time the one that makes room leaves
	let left = total;
	for (const [n, tokens] of live) {
		left -= tokens;
		if (left + need <= userLimit) return Math.ceil(((n + WINDOW_BUCKETS) * TOKEN_WINDOW_MS) / WINDOW_BUCKETS);
	}
	return windowEmptyAt(live, TOKEN_WINDOW_MS);
}

/** Tokens count in the minute's window now (mutates): a request's estimate, or what its answer used beyond it. */
function countInMinute(data: TokenData, nowMs: number, tokens: number): void {
	const live = liveBuckets(data.sent, currentBucket(data.sent, nowMs, TOKEN_WINDOW_MS));
	addToBucket(live, currentBucket(live, nowMs, TOKEN_WINDOW_MS), tokens, 0);
	data.sent = live;
}

/** A request of `model` goes (mutates): its estimate counts against its model's words, each its part, and the window, and is in flight. */
export function countTokensSent(data: TokenData, model: string | undefined, nowMs: number, cost: TokenParts): void {
	countInMinute(data, nowMs, tokensOfKind('total', cost));
	const budget = budgetOf(data, model);
	budget.inFlight = { input: budget.inFlight.input + cost.input, output: budget.inFlight.output + cost.output };
	for (const [kind, each] of kindsOf(budget)) if (each.word) each.word.sentSince += tokensOfKind(kind, cost);
}

/** What an answer tells of tokens: what its request was counted for, the server's words, its usage. */
export interface TokenAnswer {
	counted: TokenParts;
	/** The model its request named (its budget's key); absent: none. */
	model?: string;
	/** The characters its input was estimated from (for the ratio), with the usage. */
	chars?: number;
	/** The budgets its headers state, one per kind (token-headers.ts). */
	statements?: TokenStatement[];
	usage?: TokenUsage;
}

/** The answer reported (mutates). `othersInFlight`: requests of the API still in flight after it. */
export function onTokenAnswer(data: TokenData, nowMs: number, answer: TokenAnswer, othersInFlight: number): void {
	const budget = budgetOf(data, answer.model);
	// a request whose worker died never reports: with nothing in flight, nothing is
	if (othersInFlight > 0) budget.inFlight = { input: Math.max(0, budget.inFlight.input - answer.counted.input), output: Math.max(0, budget.inFlight.output - answer.counted.output) };
	else for (const each of Object.values(data.models)) each.inFlight = { input: 0, output: 0 };
	const { usage, statements } = answer;
	if (usage && answer.chars !== undefined && usage.input > 0 && answer.chars > 0) {
		const seen = Math.min(MAX_CHARS_PER_TOKEN, Math.max(MIN_CHARS_PER_TOKEN, answer.chars / usage.input));
		data.charsPerToken = data.charsPerToken === undefined ? seen : data.charsPerToken + RATIO_WEIGHT * (seen - data.charsPerToken);
	}
	if (statements && statements.length > 0) {
		for (const statement of statements) {
			const kind = (budget.kinds[statement.kind] ??= {});
			if (statement.limit !== undefined) kind.stated = statement.limit;
			// the server counted this request, not those of its model sent after it and still in flight (their estimates)
			const left = statement.remaining - tokensOfKind(statement.kind, budget.inFlight);
			if (staleWord(kind.word, left, statement.resetAt, nowMs)) continue;
			kind.word = { remaining: left, resetAt: statement.resetAt, sentSince: 0 };
		}
		return;
	}
	const over = usage ? usage.input + usage.output - tokensOfKind('total', answer.counted) : 0;
	if (over > 0) {
		// it cost more than its estimate: the minute counts the difference too. Never less: an API
		// that counts max_tokens on arrival (OpenAI) keeps counting what the answer did not use
		countInMinute(data, nowMs, over);
	}
}

/** Resets this close to each other belong to one count of the server's (a duration's rounding: "17.28s", "6m0s"). */
const SAME_COUNT_MS = 1000;

/**
 * A word the server said before the one known, and read after it. An LLM's answer takes seconds,
 * and the server states its budget as it counted the request, on arrival: a long answer brings
 * word from before the requests admitted meanwhile, whose answers came back first and are no
 * longer in flight. Taken, it gave back their tokens, and the requests it let go met 429s (13.8 to
 * 15.6 % of requests in the real-n8n LLM benchmark). A later count has the later reset (until the
 * newest count leaves the minute, or the bucket is full again), so one that resets no later than
 * the known word's, and leaves more, is older: the lower count is kept, and the later reset.
 */
function staleWord(known: Word | undefined, left: number, resetAt: number, nowMs: number): boolean {
	if (!known || known.resetAt <= nowMs || resetAt > known.resetAt + SAME_COUNT_MS) return false;
	if (known.remaining - known.sentSince > left) return false;
	known.resetAt = Math.max(known.resetAt, resetAt);
	return true;
}

/** From this time on the token state holds nothing worth keeping. */
export function tokensForgetAt(data: TokenData): number {
	const resets = Object.values(data.models ?? {}).map(latestReset);
	return Math.max(-Infinity, ...resets, windowEmptyAt(data.sent, TOKEN_WINDOW_MS));
}

/** The tokens of every model in flight, for the operator's view. */
export function tokensInFlight(data: TokenData): number {
	return Object.values(data.models ?? {}).reduce((sum, budget) => sum + tokensOfKind('total', inFlightOf(budget)), 0);
}

/** The budget shown to the operator. */
interface TokensLeft {
	perMinute: number | null;
	remaining: number | null;
	resetAt: number | null;
	model: string | null;
	kind: TokenKind | null;
}

/**
 * What is left now, for the operator's view: the server's word while it holds, of the model and
 * kind with the smallest share left (the view has no params, so no user limit), and its stated
 * limit; without a word that holds, the first stated limit.
 */
export function tokensLeft(data: TokenData, nowMs: number): TokensLeft {
	let tightest: TokensLeft = { perMinute: null, remaining: null, resetAt: null, model: null, kind: null };
	let share = Infinity;
	for (const [name, budget] of Object.entries(data.models ?? {})) {
		for (const [kind, each] of kindsOf(budget)) {
			const word = each.word;
			if (!word || word.resetAt <= nowMs) {
				if (tightest.perMinute === null && each.stated !== undefined) tightest = { ...tightest, perMinute: each.stated, model: name || null, kind };
				continue;
			}
			const remaining = Math.max(0, word.remaining - word.sentSince);
			const left = each.stated ? remaining / each.stated : remaining;
			if (left < share) {
				share = left;
				tightest = { perMinute: each.stated ?? null, remaining, resetAt: word.resetAt, model: name || null, kind };
			}
		}
	}
	return tightest;
}

/** Ended by hand with a pause (mutates): the server's words are dropped, their stated limits kept. */
export function dropTokenWords(data: TokenData): void {
	for (const budget of Object.values(data.models ?? {})) for (const [, each] of kindsOf(budget)) delete each.word;
}

/** A budget learned alone joins the shared one (mutates `shared`): the later reset is the newer word, model by model and kind by kind; the ratio and the stated limits are news. */
export function adoptTokens(shared: TokenData, learned: TokenData): void {
	shared.models ??= {};
	if (learned.charsPerToken !== undefined) shared.charsPerToken = learned.charsPerToken;
	for (const [name, budget] of Object.entries(learned.models ?? {})) {
		const into = budgetOf(shared, name);
		for (const [kind, each] of kindsOf(budget)) {
			const target = (into.kinds[kind] ??= {});
			if (each.stated !== undefined) target.stated = each.stated;
			if (each.word && (!target.word || each.word.resetAt > target.word.resetAt)) target.word = { ...each.word };
		}
	}
}
