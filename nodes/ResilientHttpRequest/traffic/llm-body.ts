/**
 * What a request body says of an LLM request, read before it is sent: its demand on the API's token
 * budget, and whether it asks for a streamed answer. One regular-expression scan first, so that the
 * JSON bodies of other APIs cost no second parse on the healthy path.
 */
import { tokenDemand, type TokenDemand } from '../../shared/core/traffic/token-estimate';

/** Bodies larger than this are not read as an LLM request or answer (no prompt is this long). */
export const MAX_LLM_BODY_BYTES = 8 * 1024 * 1024;

/** An LLM request's demand on the API's token budget, or undefined (not an LLM request: most bodies stop at one scan). */
export function requestTokenDemand(body: string | Buffer | undefined): TokenDemand | undefined {
	if (body === undefined || body.length === 0 || body.length > MAX_LLM_BODY_BYTES) return undefined;
	const text = typeof body === 'string' ? body : body.toString('utf8');
	// a scan before a parse: JSON bodies that are no LLM request cost no second parse
	if (!/"(?:messages|prompt|input|contents)"\s*:/.test(text)) return undefined;
	return tokenDemand(text);
}

/** The body asks for a streamed answer (OpenAI's, Anthropic's `"stream": true`). */
export function asksForStream(body: string | Buffer | undefined): boolean {
	if (body === undefined || body.length === 0 || body.length > MAX_LLM_BODY_BYTES) return false;
	return /"stream"\s*:\s*true/.test(typeof body === 'string' ? body : body.toString('utf8'));
}
