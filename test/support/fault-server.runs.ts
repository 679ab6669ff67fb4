/**
 * The sizes the accounting and load tests run at, and the "Faults" section of docs/testing.md built from the
 * fault cases' rows plus these sizes. One module, so that the table's accounting and load rows
 * state the sizes those tests really use (test/engine/faults.test.ts writes the section; the
 * accounting and load tests import their sizes from here).
 */
import { markdownTable } from './doc-section';

export const ACCOUNTING_RUN = Object.freeze({
	items: 200,
	seeds: [1, 2, 3] as readonly number[],
	maxAttempts: 3,
	/** The outcomes mixed (the accounting test's FAULT_MIX, in its order). */
	mix: ['200', '503', '429', '404', 'reset before the response', 'reset after the body', 'body cut', 'no answer', 'drip', 'redirect loop', 'connection refused', 'TLS handshake closed'] as readonly string[],
});

export const LOAD_RUN = Object.freeze({
	items: 10_000,
	concurrency: 50,
	/** One item in this many gets a 503 first, then 200. */
	failEvery: 10,
	/** Bytes of padding in each 503 body: 1,000 of them would hold 16 MB if failed attempts' bodies were kept. */
	failedBodyBytes: 16 * 1024,
	/** Generous safety bounds, not timing figures. */
	maxEventLoopDelayMs: 1000,
	maxHeapGrowthPerItemBytes: 20 * 1024,
	maxArrayBufferGrowthBytes: 4 * 1024 * 1024,
});

export interface FaultRow {
	fault: string;
	method: string;
	retried: string;
	endsOn: string;
	seen: string;
	attempts: number;
	note?: string;
}

const accountingRow = [
	`Accounting: ${ACCOUNTING_RUN.items} items per seed, seeds ${ACCOUNTING_RUN.seeds.join(', ')}, one execution each: a seeded random mix of ${ACCOUNTING_RUN.mix.join(', ')} (once, twice or always), GET and POST with and without a key`,
	'mixed',
	'as each fault above (every item checked against a model of its expected attempts)',
	'every item exactly once, on the success or the error output, with its original json',
	'as modelled per item; no POST without a key acted on twice (only a 429 refusal is followed by a retry)',
];

const loadRow = [
	`Load: ${LOAD_RUN.items.toLocaleString('en-US')} items in one execution, Max Items in Flight ${LOAD_RUN.concurrency}, 1 in ${LOAD_RUN.failEvery} answered 503 (${LOAD_RUN.failedBodyBytes / 1024} KiB body) once`,
	'GET',
	'yes (the 503s)',
	`all ${LOAD_RUN.items.toLocaleString('en-US')} on the success output`,
	`${(LOAD_RUN.items + LOAD_RUN.items / LOAD_RUN.failEvery).toLocaleString('en-US')}; no unhandled rejection, event loop delay max < ${LOAD_RUN.maxEventLoopDelayMs} ms, heap growth < ${LOAD_RUN.maxHeapGrowthPerItemBytes / 1024} KiB per item, array buffers < ${LOAD_RUN.maxArrayBufferGrowthBytes / 1024 / 1024} MiB (no failed body kept)`,
];

export function faultSectionMarkdown(rows: FaultRow[]): string {
	const table = markdownTable(
		['Fault', 'Method', 'Retried?', 'Item ends on', 'Requests seen'],
		[...rows.map((r) => [r.fault, r.method, r.attempts > 1 ? `${r.retried} (${r.attempts} attempts)` : r.retried, r.note ? `${r.endsOn}; ${r.note}` : r.endsOn, r.seen]), accountingRow, loadRow],
	);
	return [
		'Each row is an engine test (test/engine/faults.test.ts, accounting.test.ts, load.test.ts) against a',
		'local server that injects the fault (test/support/fault-server.ts); Max Attempts 3 unless said.',
		'"Requests seen" is what the server logged for that item.',
		'',
		table,
		'',
		'Decisions:',
		'',
		'- A response cut mid-body (`ERR_STREAM_PREMATURE_CLOSE`) fails like a reset connection: retried when',
		'  the request is safe to repeat; a POST without a key is not retried (the server answered, so it acted).',
		'- A TLS handshake the server closes (FIN) never carried the request: retried for any method. One it',
		'  resets (RST) shows only as "read ECONNRESET", which cannot be told from a reset after the request',
		'  was sent: a POST without a key is then not retried (the safe side).',
		'- The Attempt Timeout bounds the whole attempt, body included: a server that drips bytes cannot keep',
		'  it alive. A timed-out or cancelled attempt closes its connection, also with a credential n8n applies',
		'  (Header, Bearer, OAuth2): the node hands the attempt\'s abort signal to n8n\'s helper.',
		'- A failed attempt\'s body is dropped when the next attempt starts. The error output\'s `body` is',
		'  parsed JSON only up to 64 KiB; a larger body is given as its first 2,000 characters of text, so a',
		'  huge error page or dump never lands in the execution data.',
		'- Responses are read whole, with no size limit (as in n8n\'s HTTP Request).',
		'- A `.invalid` host fails with `ENOTFOUND` at once and is not retried (a missing host does not come',
		'  back by waiting); `EAI_AGAIN`, a temporary DNS failure, is retried.',
		'- Redis stopped while the budget is in use: no item fails; the traffic controllers answer from this',
		'  process\'s memory until Redis answers again (see *Queue mode*).',
	].join('\n');
}
