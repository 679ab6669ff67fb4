import { RETRY_LIMITS } from './defaults';

export type IdempotencyMode = 'off' | 'generate' | 'expression';

/** Returns an error message, or undefined when the key is usable as a header value. */
export function idempotencyKeyProblem(key: unknown): string | undefined {
	if (typeof key !== 'string' && typeof key !== 'number') return `must be text, got ${key === null ? 'null' : typeof key}`;
	if (typeof key === 'number' && !Number.isFinite(key)) return `must be text or a finite number, got ${key}`;
	const text = String(key);
	if (text.trim() === '') return 'is empty';
	// HTTP trims header values: the server would see another key than the one in the story
	if (text !== text.trim()) return 'has leading or trailing spaces';
	if (text.length > RETRY_LIMITS.idempotencyKeyLength) {
		return `is ${text.length} characters long; at most ${RETRY_LIMITS.idempotencyKeyLength} are allowed`;
	}
	if (/[\x00-\x1f\x7f]/.test(text)) return 'contains control characters';
	if (!/^[\x20-\x7e]+$/.test(text)) return 'contains characters outside printable ASCII, which HTTP headers cannot carry safely';
	return undefined;
}

/** HTTP header names are tokens (RFC 9110 section 5.1). */
export function headerNameProblem(name: string): string | undefined {
	// JSON.stringify shows a control character as an escape instead of printing it
	if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return `${JSON.stringify(name)} is not a valid HTTP header name: no spaces, control characters, non-ASCII letters or separators such as : ( ) , / " are allowed`;
	return undefined;
}

/**
 * Header values may hold visible characters, spaces and tabs (RFC 9110 section 5.5). A CR or LF
 * would let a value inject headers of its own; Node's HTTP client rejects them with an obscure error.
 */
export function headerValueProblem(value: string): string | undefined {
	if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 'contains control characters (a line break, for example), which a header value cannot carry';
	return undefined;
}
