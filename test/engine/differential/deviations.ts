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

const WHOLE_ITEM = /^outputs\[0\]\[\d+\]$/;
const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An item's json apart from the retry story (`_retry`, explained by its own deviation). */
function jsonWithoutStory(item: unknown): Record<string, unknown> | undefined {
	if (!isPlain(item) || !isPlain(item.json)) return undefined;
	const { _retry: _story, ...rest } = item.json;
	return rest;
}

/** Options > Response > Response Format of the case ('autodetect' when not set). */
function responseFormatOf(c: DiffCase): unknown {
	const options = c.parameters.options as { response?: { response?: { responseFormat?: unknown } } } | undefined;
	return options?.response?.response?.responseFormat ?? 'autodetect';
}

/** The node's one item where HTTP Request gave none: the item (its json checked), and the downstream node that ran for it. */
function itemWhereReferenceGaveNone(d: Difference, expected: (json: Record<string, unknown>) => boolean): boolean {
	if (d.path === 'downstream.OK') return d.reference === 0 && d.resilient === 1;
	const json = jsonWithoutStory(d.resilient);
	return WHOLE_ITEM.test(d.path) && d.reference === undefined && json !== undefined && expected(json);
}

/** HTTP Request's failed run where the node succeeded: the status, and the error (by its message). */
function referenceFailedWith(d: Difference, message: string): boolean {
	if (d.path === 'status') return d.reference === 'error' && d.resilient === 'success';
	return (d.path === 'executionError' || d.path === 'nodeError') && d.resilient === undefined && isPlain(d.reference) && d.reference.message === message;
}

export const DEVIATIONS: readonly Deviation[] = [
	{
		name: 'error-additions',
		reason:
			"An error item carries what this node adds beside HTTP Request's fields: the retry story (`_retry`), the reason it stopped, when the server allows another try (retryAt, retryAfterMs), the idempotency key and, for pagination, the pages fetched and where to resume (issue 21, point 3). Only the additions are explained: a field HTTP Request has and this node lacks, or fills otherwise, stays unexplained.",
		matches: (d) => /^outputs\[\d+\]\[\d+\]\.json\.error\.(_retry|reason|retryAt|retryAfterMs|idempotencyKey|pagination)$/.test(d.path) && d.reference === undefined,
	},
	{
		name: 'empty-array-keeps-item',
		reason:
			'A JSON body that is an empty array gives HTTP Request no item for the input item, so the nodes after it do not run for it; the node keeps one item, `{ data: [] }`: every input item ends on an output (a request that answered must not vanish from the run, e.g. from a Merge by position). Pinned in test/engine/response-items.test.ts.',
		matches: (d, c) => /^json empty array, format (autodetect|json)$/.test(c.name) && itemWhereReferenceGaveNone(d, (json) => Object.keys(json).length === 1 && Array.isArray(json.data) && json.data.length === 0),
	},
	{
		name: 'scalar-json-under-field',
		reason:
			"A JSON body that is a number, a string or an array of them makes HTTP Request emit that value as an item's json (`json: 42`), which is not n8n item data: a downstream Edit Fields cannot add a field to it and passes it on unchanged. The node puts the value under the output field (`{ data: 42 }`), as HTTP Request does for a text body. Pinned in test/engine/response-items.test.ts.",
		matches: (d) => /^outputs\[0\]\[\d+\]\.json$/.test(d.path) && d.reference !== null && typeof d.reference !== 'object' && isPlain(d.resilient) && d.resilient.data === d.reference,
	},
	{
		name: 'empty-json-body-answered',
		reason:
			"With Response Format JSON and an empty body, HTTP Request fails the run with \"Cannot read properties of undefined (reading 'data')\" (its item has no json; a bug). The node answers `{}`, as HTTP Request itself does for a blank JSON body. Pinned in test/engine/response-items.test.ts.",
		matches: (d, c) =>
			responseFormatOf(c) === 'json' &&
			/^empty body/.test(c.name) &&
			(itemWhereReferenceGaveNone(d, (json) => Object.keys(json).length === 0) || referenceFailedWith(d, "Cannot read properties of undefined (reading 'data')")),
	},
	{
		name: 'raw-body-response-read',
		reason:
			"With Body Content Type Raw, HTTP Request asks n8n for the response as a stream and, under Response Format JSON, emits the stream object itself as the item's json (socket, buffers and all; a bug). The node reads the body as the format says: JSON parsed. Pinned in test/engine/response-items.test.ts.",
		matches: (d, c) => c.parameters.contentType === 'raw' && responseFormatOf(c) === 'json' && /^outputs\[0\]\[0\]\.json\./.test(d.path),
	},
	{
		name: 'compressed-file-name',
		reason:
			"When the server compresses a file (Content-Encoding: gzip), HTTP Request gets a decompressing stream instead of n8n's response, from which n8n's prepareBinaryData reads no name: the file loses its Content-Disposition or URL name and its directory and becomes data.<extension>. The node names a file the same way whether it came compressed or not (n8n's client removes Content-Encoding as it decompresses, so the node could not tell anyway). Pinned in test/engine/response-items.test.ts.",
		matches: (d, c) => /^gzip /.test(c.name) && /^outputs\[0\]\[0\]\.binary\.[^.]+\.(fileName|directory)$/.test(d.path),
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
