/**
 * What an LLM request will cost in tokens, before it is sent, and what it cost, from its answer.
 *
 * Before: LLM APIs count a request against their tokens-per-minute budget when it arrives, as its
 * input plus the most it may write (OpenAI: "your rate limit is calculated as the maximum of
 * max_tokens and the estimated number of tokens based on the character count of your request").
 * The input is estimated from the characters of what the model reads (messages, prompt, input,
 * system, contents, instructions, tools), at 4 characters a token until answers teach the API's own
 * ratio (TokenDemand.chars is kept for that); the output is `max_tokens`, `max_completion_tokens`,
 * `max_output_tokens` or Gemini's `generationConfig.maxOutputTokens`, and nothing when none is set.
 *
 * After: the answer's `usage` (OpenAI chat: prompt_tokens / completion_tokens; OpenAI Responses and
 * Anthropic: input_tokens / output_tokens; Gemini: usageMetadata.promptTokenCount /
 * candidatesTokenCount). Pure: no n8n.
 */

/** An LLM request's demand: the characters the model reads, and the most it may write (tokens). */
export interface TokenDemand {
	chars: number;
	output: number;
	/** The model the body names (its budget at the API, tokens.ts); absent: none. */
	model?: string;
}

/** What an answer says it cost. */
export interface TokenUsage {
	input: number;
	output: number;
}

/** Characters per token before an answer says otherwise (OpenAI: "1 token ~= 4 chars in English"). */
export const DEFAULT_CHARS_PER_TOKEN = 4;

/** The fields a model reads, by the APIs that define them. */
const READ_FIELDS = ['messages', 'prompt', 'input', 'system', 'contents', 'instructions', 'tools', 'systemInstruction'];
/** The fields that bound what it writes. */
const OUTPUT_FIELDS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tokensIn(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/** The body as JSON: an object, or text that parses to one. */
function jsonBody(body: unknown): Json | undefined {
	if (isObject(body)) return body;
	if (typeof body !== 'string' || body.length === 0 || body.trimStart()[0] !== '{') return undefined;
	try {
		const parsed: unknown = JSON.parse(body);
		return isObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The demand of a request body, or undefined when it is no LLM request (none of the fields a model
 * reads). The characters are those of the fields as JSON: the quotes and keys cost a little more
 * than the text alone, which errs on the side of waiting, and the ratio learned from answers
 * (charsPerToken) is of the same count.
 */
export function tokenDemand(body: unknown): TokenDemand | undefined {
	const json = jsonBody(body);
	if (!json) return undefined;
	let chars = 0;
	let read = false;
	for (const field of READ_FIELDS) {
		const value = json[field];
		if (value === undefined || value === null) continue;
		read = true;
		chars += typeof value === 'string' ? value.length : JSON.stringify(value).length;
	}
	if (!read) return undefined;
	let output = 0;
	for (const field of OUTPUT_FIELDS) output = Math.max(output, tokensIn(json[field]) ?? 0);
	const generation = json.generationConfig;
	if (isObject(generation)) output = Math.max(output, tokensIn(generation.maxOutputTokens) ?? 0);
	return { chars, output, ...(typeof json.model === 'string' && json.model.trim() !== '' ? { model: json.model } : {}) };
}

/** A request's tokens as an LLM API counts them: what the model reads, and what it writes (or may write). */
export interface TokenParts {
	input: number;
	output: number;
}

export const NO_TOKENS: TokenParts = Object.freeze({ input: 0, output: 0 });

/**
 * What a budget counts: input and output together (OpenAI's tokens a minute), or each apart
 * (Anthropic's input tokens and output tokens a minute, limited and stated separately).
 */
export type TokenKind = 'total' | 'input' | 'output';

/** The tokens of `parts` that a budget of `kind` counts. */
export function tokensOfKind(kind: TokenKind, parts: TokenParts): number {
	return kind === 'input' ? parts.input : kind === 'output' ? parts.output : parts.input + parts.output;
}

/** The tokens a demand counts for, at `charsPerToken` (at least one token for any input): its input estimated, its output as asked. */
export function demandParts(demand: TokenDemand, charsPerToken: number = DEFAULT_CHARS_PER_TOKEN): TokenParts {
	const ratio = Number.isFinite(charsPerToken) && charsPerToken > 0 ? charsPerToken : DEFAULT_CHARS_PER_TOKEN;
	return { input: Math.ceil(demand.chars / ratio), output: demand.output };
}

/** The usage an answer body states, or undefined. */
export function tokenUsage(body: unknown): TokenUsage | undefined {
	const json = jsonBody(body);
	if (!json) return undefined;
	const usage = json.usage;
	if (isObject(usage)) {
		const input = tokensIn(usage.prompt_tokens) ?? tokensIn(usage.input_tokens);
		const output = tokensIn(usage.completion_tokens) ?? tokensIn(usage.output_tokens) ?? 0;
		if (input !== undefined) return { input, output };
	}
	const gemini = json.usageMetadata;
	if (isObject(gemini)) {
		const input = tokensIn(gemini.promptTokenCount);
		if (input !== undefined) return { input, output: tokensIn(gemini.candidatesTokenCount) ?? 0 };
	}
	return undefined;
}
