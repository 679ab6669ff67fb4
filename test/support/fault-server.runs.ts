/**
 * The sizes the accounting and load tests run at, and the README "Faults" section built from the
 * fault cases' rows plus these sizes. One module, so that the table's accounting and load rows
 * state the sizes those tests really use (test/engine/faults.test.ts writes the section; the
 * accounting and load tests import their sizes from here).
 */
import { markdownTable } from './readme-section';

export const ACCOUNTING_RUN = Object.freeze({ items: 200, seeds: [1, 2, 3] as readonly number[], maxAttempts: 3 });

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
	`Accounting: ${ACCOUNTING_RUN.items} items, seeds ${ACCOUNTING_RUN.seeds.join(', ')}: a seeded random mix of every fault above, 2xx, 404, 429, 503, GET and POST with and without a key`,
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
		'- A response cut mid-body, or a TLS handshake the server resets, fails like a reset connection:',
		'  retried for idempotent requests; a POST without a key is not retried after a cut body (the server',
		'  answered, so it acted), but is after a reset handshake (nothing was sent).',
		'- The per-attempt timeout bounds the whole attempt, headers and body: a server that drips bytes',
		'  cannot keep an attempt alive past it.',
		'- A failed attempt\'s body is dropped when the next attempt starts; the error output carries at',
		'  most the first 2,000 characters of the last one.',
		'- A 20 MB body is read whole (as n8n\'s HTTP Request does); there is no size limit on responses.',
	].join('\n');
}
