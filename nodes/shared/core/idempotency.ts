import { createHash } from 'node:crypto';
import { RETRY_LIMITS } from './defaults';
import { getPath, parsePath } from './json-path';

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

/**
 * How Generate makes a key: at random (a new one on every run of the workflow), or derived from
 * what identifies the item, so that a re-run, n8n's Retry execution or a replay of the same input
 * gets the same key again.
 */
export type GeneratedKeyBasis = 'random' | 'itemData' | 'fields';

export const GENERATED_KEY_BASES: readonly GeneratedKeyBasis[] = ['random', 'itemData', 'fields'];

/** Where a derived key belongs: the same data sent by another workflow or node is another request. */
export interface KeyScope {
	workflowId: string;
	nodeId: string;
}

/**
 * The namespace of derived keys: a fixed UUID of this package (RFC 9562 name-based UUIDs hash a
 * namespace and a name). Changing it would change every derived key: never do.
 */
export const NAME_BASED_UUID_NAMESPACE = '6f1d3c2a-8b47-4e0f-9a5d-2c7e91b04d38';
const NAMESPACE_BYTES = Buffer.from(NAME_BASED_UUID_NAMESPACE.replace(/-/g, ''), 'hex');

/**
 * JSON with the keys of every object sorted, so that the same data gives the same text whatever
 * order its fields were written in. Values go through JSON's own rules (toJSON, undefined dropped),
 * which are also what n8n stores: a Date on the first run and its ISO text on a retry read the same.
 */
export function canonicalJson(value: unknown): string {
	// the replacer sees values after toJSON: a Date is already text, a Buffer a plain object
	return JSON.stringify(value === undefined ? null : value, (_key, v: unknown) =>
		typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v,
	);
}

/**
 * A key derived from the scope and a value: a UUID (RFC 9562 version 8, name-based with SHA-256
 * as in its appendix B.2) of the namespace and the canonical JSON of [workflow, node, basis,
 * value]. Only the hash leaves the node: the value itself is never part of the key. 36 characters,
 * like a random key, so that APIs that limit keys (Square: 45) or expect a UUID take it too.
 */
export function derivedIdempotencyKey(scope: KeyScope, basis: Exclude<GeneratedKeyBasis, 'random'>, value: unknown): string {
	const name = canonicalJson(['n8n-nodes-resilient-http/idempotency-key/v1', scope.workflowId, scope.nodeId, basis, value]);
	const hash = createHash('sha256').update(NAMESPACE_BYTES).update(name, 'utf8').digest();
	hash[6] = (hash[6] & 0x0f) | 0x80; // version 8
	hash[8] = (hash[8] & 0x3f) | 0x80; // variant 10
	const hex = hash.subarray(0, 16).toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** "orderId, customer.email" -> ['customer.email', 'orderId']: the order written does not change the key. */
export function parseFieldList(text: unknown): { fields: string[] } | { problem: string } {
	if (typeof text !== 'string') return { problem: `must be text (field names separated by commas), got ${text === null ? 'null' : typeof text}` };
	const fields = [...new Set(text.split(',').map((f) => f.trim()).filter((f) => f !== ''))].sort();
	if (fields.length === 0) return { problem: 'is empty: list the fields that identify the request, separated by commas' };
	const bad = fields.find((f) => parsePath(f).some((key) => key === ''));
	if (bad !== undefined) return { problem: `has an invalid field path "${bad}": write a path such as customer.email or lines[0].sku` };
	return { fields };
}

/**
 * The fields' values, by path (`customer.email`, `lines[0].sku`, `lines.0.sku`: json-path.ts), or
 * the first field an item lacks. A missing or empty field is a problem, not a value: every item
 * lacking it would get the same key, and the API would perform only the first of them.
 */
export function fieldValues(json: Record<string, unknown>, fields: string[]): { values: Record<string, unknown> } | { missing: string; empty: boolean } {
	const values: Record<string, unknown> = {};
	for (const field of fields) {
		const value = getPath(json, field);
		if (value === undefined) return { missing: field, empty: false };
		if (value === null || (typeof value === 'string' && value.trim() === '')) return { missing: field, empty: true };
		values[field] = value;
	}
	return { values };
}
