/**
 * What the nodes leave on an item and read back when it returns to them: the HTTP node's record of
 * a failed pass (its retry story and its error output carry the idempotency key and the node that
 * generated it), and Backoff Delay's loop annotation. Found by their shape, wherever they sit, so
 * that renaming a field (Retry Story Field, Backoff Field) does not hide them. Pure.
 */
import { idempotencyKeyProblem } from './idempotency';
import { readStopReason } from './stop-reasons';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The error output first (the latest pass), then its fields (the story), then the item's own fields. */
function candidates(json: Json): Json[] {
	const error = isObject(json.error) ? json.error : undefined;
	const nested = error ? Object.values(error).filter(isObject) : [];
	return [...(error ? [error] : []), ...nested, ...Object.values(json).filter(isObject)];
}

/**
 * The key a failed pass of node `owner` sent this item with. Only a failed pass counts: after a
 * success, the item coming back is a new request (a loop over pages, say), which must not be
 * answered from the server's memory of the first one.
 */
export function ownFailedPassKey(json: Json, owner: string): string | undefined {
	for (const record of candidates(json)) {
		if (record.idempotencyKeyOwner !== owner || record.stoppedBecause === 'success' || record.reason === 'success') continue;
		const key = record.idempotencyKey;
		if (typeof key === 'string' && idempotencyKeyProblem(key) === undefined) return key;
	}
	return undefined;
}

/** Backoff Delay's annotation, by its shape: the attempt about to be made, the limit, the first failure. */
export function isBackoffAnnotation(value: unknown): value is Json & { attempt: number } {
	return isObject(value) && typeof value.attempt === 'number' && Number.isInteger(value.attempt) && typeof value.maxAttempts === 'number' && typeof value.firstFailureAt === 'string';
}

/**
 * Whether the item's next request is a retry for the retry budget: it comes back through a Backoff
 * Delay loop (attempt 2 or more), whatever the loop's field is named.
 */
export function isLoopRetry(json: Json): boolean {
	return Object.values(json).some((value) => isBackoffAnnotation(value) && value.attempt >= 2);
}

/** A retry story of the HTTP node, by its shape, whatever Retry Story Field is called. */
export function isRetryStory(value: unknown): boolean {
	return isObject(value) && typeof value.attempts === 'number' && typeof value.stoppedBecause === 'string' && Array.isArray(value.history);
}

/** The HTTP node's error output record (`error`): a stop reason and a message, maybe its story. */
function isErrorRecord(value: unknown): boolean {
	return isObject(value) && typeof value.message === 'string' && readStopReason(value.reason, value.status !== undefined) !== undefined;
}

/**
 * The item's own data: its json without the records this package's nodes leave on items (retry
 * stories, Backoff Delay's annotation, the error output's `error`). They hold times and counts that
 * differ on every run, so a key derived from the item's data must not see them.
 */
export function withoutPackageRecords(json: Json): Json {
	return Object.fromEntries(Object.entries(json).filter(([field, value]) => !isRetryStory(value) && !isBackoffAnnotation(value) && !(field === 'error' && isErrorRecord(value))));
}
