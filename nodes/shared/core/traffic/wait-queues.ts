/**
 * The queues an API's waiting requests wait in (waiters.ts), named by the API's controller key and
 * what frees them. The one place that knows how a queue is named: the gate waits and wakes by
 * these names, the Traffic Control node wakes all of an API's queues after ending a pause by hand.
 */
import type { WaitReason } from './controller';
import type { Waiters } from './waiters';

/** What a request waits for: a reason of the controller, or a bucket's pause (not the API's). */
type QueueReason = WaitReason | 'bucket';

/**
 * Waiters queue by what frees them: a report frees room in the window or ends a probe
 * (`held` and `window` wait in one queue); a first request makes room in the budget. A bucket's pause
 * (`bucket`) is not the API's: the API's requests going on must not wake its waiters. Every queue
 * of an API starts with its key and `|`, so that all of them can be woken at once.
 */
export function queueOf(key: string, reason: QueueReason): string {
	if (reason === 'bucket') return `${key}|bucket`;
	if (reason === 'budget') return `${key}|budget`;
	if (reason === 'paused') return `${key}|paused`;
	if (reason === 'pace') return `${key}|pace`;
	if (reason === 'tokens') return `${key}|tokens`;
	return `${key}|window`;
}

const QUEUE_REASONS: QueueReason[] = ['window', 'paused', 'budget', 'pace', 'bucket', 'tokens'];

/** The longest waiter of each of the API's queues looks again (another process changed its state). */
export function wakeOneOfEachQueue(waiters: Waiters, key: string): void {
	for (const reason of QUEUE_REASONS) waiters.wake(queueOf(key, reason));
}

/** Every waiter of every queue of the API looks again (its pause or hold was ended by hand). */
export function wakeAllQueuesOf(waiters: Waiters, key: string): void {
	waiters.wakeAll(`${key}|`);
}
