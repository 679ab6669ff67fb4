/** Backoff Delay's loop state on the item: the retry token between passes. */
import { readLoopState } from '../../nodes/BackoffDelay/loop-state';
import { isBackoffAnnotation, isLoopRetry, ownFailedPassKey } from '../../nodes/shared/core/item-records';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('readLoopState', () => {
	it('an item without the field is on its first failure: the deadline counts from now', () => {
		expect(readLoopState({ id: 1 }, '_backoff', NOW)).toEqual({ attempts: 1, startedAt: NOW });
	});

	it("reads the attempt, the first failure and the last backoff of an earlier pass (an annotation of the previous version too)", () => {
		const first = new Date(NOW - 5000).toISOString();
		const written = { attempt: 3, maxAttempts: 5, firstFailureAt: first, delayMs: 800, delayReason: 'backoff' };
		expect(readLoopState({ loop: written }, 'loop', NOW)).toEqual({ attempts: 3, startedAt: NOW - 5000, previousDelayMs: 800 });
		const legacy = { attempt: 2, maxAttempts: 5, firstFailureAt: first, giveUpReason: 'server-delay-too-long', serverDelayMs: 7_200_000 };
		expect(readLoopState({ _backoff: legacy }, '_backoff', NOW)).toEqual({ attempts: 2, startedAt: NOW - 5000 });
	});

	it('a server-requested wait is not the previous backoff', () => {
		expect(readLoopState({ _backoff: { attempt: 2, firstFailureAt: new Date(NOW).toISOString(), delayMs: 9000, delayReason: 'retry-after' } }, '_backoff', NOW)).toEqual({ attempts: 2, startedAt: NOW });
	});

	it('a field holding something else is a problem to report', () => {
		expect(readLoopState({ _backoff: 'x' }, '_backoff', NOW)).toEqual({ problem: 'holds "x", not the node\'s state object' });
		expect(readLoopState({ _backoff: { attempt: 0 } }, '_backoff', NOW)).toMatchObject({ problem: expect.stringContaining('not an attempt number') });
	});
});

describe('records read back by the HTTP node', () => {
	const annotation = { attempt: 2, maxAttempts: 5, firstFailureAt: new Date(NOW).toISOString() };

	it('a Backoff Delay annotation is found by its shape, whatever the field is named', () => {
		expect(isBackoffAnnotation(annotation)).toBe(true);
		expect(isLoopRetry({ anyName: annotation })).toBe(true);
		expect(isLoopRetry({ anyName: { ...annotation, attempt: 1 } })).toBe(false);
		expect(isLoopRetry({ attempt: 2, note: { attempt: 2 } })).toBe(false);
	});

	it("the key of this node's failed pass, from the error output or its story; never another node's, never after a success", () => {
		const failedHere = { error: { reason: 'attempts-exhausted', idempotencyKey: 'k-a', idempotencyKeyOwner: 'node-a' } };
		expect(ownFailedPassKey(failedHere, 'node-a')).toBe('k-a');
		expect(ownFailedPassKey({ error: { message: 'x', _retry: { stoppedBecause: 'attempts-exhausted', idempotencyKey: 'k-a', idempotencyKeyOwner: 'node-a' } } }, 'node-a')).toBe('k-a');
		expect(ownFailedPassKey(failedHere, 'node-b')).toBeUndefined();
		expect(ownFailedPassKey({ _retry: { stoppedBecause: 'success', idempotencyKey: 'k-a', idempotencyKeyOwner: 'node-a' } }, 'node-a')).toBeUndefined();
		// a key that could not be sent as a header is no key to reuse
		expect(ownFailedPassKey({ error: { reason: 'attempts-exhausted', idempotencyKey: 'k\n', idempotencyKeyOwner: 'node-a' } }, 'node-a')).toBeUndefined();
	});
});
