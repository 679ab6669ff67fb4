/**
 * Known, deliberate differences between Resilient HTTP Request and n8n's HTTP Request, each with its
 * reason. A difference a deviation matches is reported under the deviation's name; any other
 * difference is unexplained. Keep each matcher as narrow as its reason: a deviation that matched
 * more than it explains would hide the differences this suite exists to find.
 */
import type { DiffCase, Difference } from './harness';

export interface Deviation {
	name: string;
	reason: string;
	matches(difference: Difference, c: DiffCase): boolean;
}

export const DEVIATIONS: readonly Deviation[] = [
	{
		name: 'error-additions',
		reason:
			"An error item carries what this node adds beside HTTP Request's fields: the retry story (`_retry`), the reason it stopped, when the server allows another try (retryAt, retryAfterMs), the idempotency key and, for pagination, the pages fetched and where to resume (issue 21, point 3). Only the additions are explained: a field HTTP Request has and this node lacks, or fills otherwise, stays unexplained.",
		matches: (d) => /^outputs\[\d+\]\[\d+\]\.json\.error\.(_retry|reason|retryAt|retryAfterMs|idempotencyKey|pagination)$/.test(d.path) && d.reference === undefined,
	},
];

export type Verdict = 'identical' | `deliberate:${string}` | 'different';

export interface Judgement {
	verdict: Verdict;
	/** Names of the deviations that explained differences. */
	deviations: string[];
	/** Differences no deviation explains. */
	unexplained: Difference[];
}

/**
 * Collapses differences under a common path: `_retry.attempts`, `_retry.history` ... become one
 * `_retry` for the report (matching is done on the leaves).
 */
export function judge(differences: Difference[], c: DiffCase, deviations: readonly Deviation[] = DEVIATIONS): Judgement {
	const used = new Set<string>();
	const unexplained: Difference[] = [];
	for (const d of differences) {
		const deviation = deviations.find((dev) => dev.matches(d, c));
		if (deviation) used.add(deviation.name);
		else unexplained.push(d);
	}
	const names = [...used].sort();
	if (unexplained.length > 0) return { verdict: 'different', deviations: names, unexplained };
	if (names.length > 0) return { verdict: `deliberate:${names.join('+')}`, deviations: names, unexplained };
	return { verdict: 'identical', deviations: [], unexplained };
}
