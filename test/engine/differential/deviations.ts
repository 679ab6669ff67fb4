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

const ITEM_JSON = /^outputs\[\d+\]\[\d+\]\.json\./;

export const DEVIATIONS: readonly Deviation[] = [
	{
		name: 'retry-story',
		reason:
			'The node adds its retry story (`_retry`: attempts, history, summary) to every success item. Issue 21 makes it a choice (Retry Story: On Failed Items by default), after which this deviation goes.',
		matches: (d) => ITEM_JSON.test(d.path) && /\.json\._retry(\.|$|\[)/.test(d.path) && d.reference === undefined,
	},
	{
		name: 'error-additions',
		reason:
			"An error item carries what this node adds beside HTTP Request's fields: the retry story (`_retry`), the reason it stopped, when the server allows another try (retryAt, retryAfterMs), the idempotency key and, for pagination, the pages fetched and where to resume (issue 21, point 3). Only the additions are explained: a field HTTP Request has and this node lacks, or fills otherwise, stays unexplained.",
		matches: (d) => /^outputs\[\d+\]\[\d+\]\.json\.error\.(_retry|reason|retryAt|retryAfterMs|idempotencyKey|idempotencyKeyOwner|pagination)$/.test(d.path) && d.reference === undefined,
	},
	{
		name: 'story-in-description',
		reason:
			"A thrown error's description is HTTP Request's (for the same failure), followed by the retry story as lines a person reads: one per attempt (when, status or error, how long, the wait before the next and why), then how it ended (issue 21, point 5). Only a description that starts with HTTP Request's and goes on with the story is explained.",
		matches: (d) => {
			if (!/^(nodeError|executionError)\.description$/.test(d.path) || typeof d.resilient !== 'string') return false;
			const before = typeof d.reference === 'string' && d.reference !== '' ? `${d.reference}\n\n` : '';
			return d.resilient.startsWith(`${before}Retry story: `);
		},
	},
	{
		name: 'error-output-binary',
		reason:
			"An item on the error output keeps the input item's binary data (HTTP Request's drops it): a Backoff Delay loop sends the item again, and a request whose body is that binary needs it (docs/backoff-delay.md). Pinned by test/engine/backoff-delay.test.ts and resilient-http.test.ts.",
		matches: (d, c) => c.onError === 'continueErrorOutput' && /^outputs\[1\]\[\d+\]\.binary$/.test(d.path) && d.reference === undefined,
	},
	{
		name: 'cross-origin-credentials-quoted',
		reason:
			"HTTP Request before 4.4 sends credentials on a cross-origin redirect unless told otherwise, and its thrown error quotes that setting (context.request.sendCredentialsOnCrossOriginRedirect: true); this node follows 4.4 (off unless Send Credentials on Cross-Origin Redirect is on: the safer choice) and quotes its own setting. Pinned by test/engine/resilient-http-features.test.ts (no credentials to another origin on a redirect).",
		matches: (d, c) => c.typeVersion < 4.4 && /^(nodeError|executionError)\.context\.request\.sendCredentialsOnCrossOriginRedirect$/.test(d.path) && d.reference === true && d.resilient === false,
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
