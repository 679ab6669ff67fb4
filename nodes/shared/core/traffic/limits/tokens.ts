/**
 * The API's token budget (tokens.ts): an LLM request waits until the tokens it is estimated to
 * count fit what the server said is left (or its stated reset), and the user's Token Limit. A
 * request with no demand (not an LLM request) costs it nothing: it reads and writes nothing, and
 * the step merges as before. An LLM request is counted in flight from the first.
 */
import { adoptTokens, copyTokens, countTokensSent, dropTokenWords, freshTokens, onTokenAnswer, settleTokens, tokenCost, tokensAllowAt, tokensBounded, tokensForgetAt, tokensInFlight, tokensLeft } from '../tokens';
import type { TokenParts } from '../token-estimate';
import { isoTime as iso, readsNoCount } from './limit';
import type { TokenData } from '../tokens';
import type { Asking, Limit } from '../types';

/**
 * The request is an LLM request: it counts (its estimate is in flight until it reports, so that
 * the first answer to state a budget finds the requests it did not count), and it waits when a
 * budget is known: the server stated one, or the user set a Token Limit.
 */
const counts = ({ request }: Asking): boolean => request.tokens !== undefined;
const bounded = ({ data, params, request }: Asking): boolean => tokensBounded(data.tokens, request.tokens?.model, params.tokenLimitPerMinute);

/** What the request counts for against `state`: its estimate, input and output. */
const costOf = ({ request }: Asking, state: TokenData): TokenParts => tokenCost(state, request.tokens!);

export const tokens: Limit = {
	name: 'tokens',
	copy(data) {
		if (data.tokens) data.tokens = copyTokens(data.tokens);
	},
	settle(data, nowMs) {
		if (data.tokens) settleTokens(data.tokens, nowMs);
	},
	verdict(asking) {
		if (!counts(asking) || !bounded(asking)) return undefined;
		const { data, nowMs, request, params } = asking;
		const state = data.tokens ?? freshTokens();
		const at = tokensAllowAt(state, request.tokens!.model, nowMs, costOf(asking, state), params.tokenLimitPerMinute);
		// a wait for the server's reset or for the minute's counts to leave: time ends it, and an
		// answer that restates the budget (reportOutcome wakes the line)
		return at > nowMs ? { go: false, reason: 'tokens', until: at, wake: 'time' } : undefined;
	},
	refusalMerges: readsNoCount,
	admitted(asking, admission) {
		if (!counts(asking)) return;
		const { data, nowMs, request } = asking;
		const state = (data.tokens ??= freshTokens());
		const cost = costOf(asking, state);
		countTokensSent(state, request.tokens!.model, nowMs, cost);
		admission.tokens = cost;
	},
	admissionMerges: (asking) => (counts(asking) ? undefined : readsNoCount()),
	completed(answer) {
		const { data, nowMs, outcome } = answer;
		const reported = outcome.tokens;
		if (!reported || (!data.tokens && !reported.statements?.length && reported.counted.input + reported.counted.output === 0)) return;
		answer.exact = true;
		onTokenAnswer((data.tokens ??= freshTokens()), nowMs, reported, answer.inFlight);
		// news of the budget: a request waiting for it may fit now
		if (reported.statements?.length) answer.frees = true;
	},
	forgetAt: (data) => (data.tokens ? tokensForgetAt(data.tokens) : -Infinity),
	view(data, nowMs, view, _inFlight) {
		const state = data.tokens;
		if (!state) return;
		const left = tokensLeft(state, nowMs);
		view.tokens = {
			perMinute: left.perMinute,
			remaining: left.remaining,
			resetAt: left.resetAt !== null ? iso(left.resetAt) : null,
			model: left.model,
			kind: left.kind,
			inFlight: tokensInFlight(state),
			charsPerToken: state.charsPerToken !== undefined ? Math.round(state.charsPerToken * 100) / 100 : null,
		};
	},
	/** Ended by hand with the pause: the server's words are dropped (the user's limit still counts). */
	resume(data, _nowMs, what) {
		if (what.pause && data.tokens) dropTokenWords(data.tokens);
	},
	/** A budget learned alone: the later reset is the newer word, model by model; the ratio and the stated limits are news. */
	adopt(data, local) {
		if (local.tokens) adoptTokens((data.tokens ??= freshTokens()), local.tokens);
	},
};
