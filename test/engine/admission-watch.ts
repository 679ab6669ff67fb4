/**
 * A memory store that keeps every admission the traffic controller granted, in order: a story
 * tells of the window or the budget only where they made an attempt wait, so tests that check
 * them for every request read them here.
 */
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';

/** What an admission that let a request go reports (core/traffic/controller.ts Admission). */
export interface GrantedAdmission {
	window?: unknown;
	budget?: { retries?: unknown };
}

export function admissionWatchingStore(): { store: MemoryStateStore; granted: GrantedAdmission[] } {
	const granted: GrantedAdmission[] = [];
	const store = new (class extends MemoryStateStore {
		override async traffic<T>(...args: Parameters<MemoryStateStore['traffic']>): Promise<T> {
			const result = (await super.traffic(...args)) as T;
			if ((result as { go?: boolean } | undefined)?.go === true) granted.push(result as GrantedAdmission);
			return result;
		}
	})();
	return { store, granted };
}

/** The retry budget's count of retries as each request was admitted. */
export const budgetRetriesOf = (granted: GrantedAdmission[]): number[] =>
	granted.map((admission) => admission.budget?.retries).filter((retries): retries is number => typeof retries === 'number');
