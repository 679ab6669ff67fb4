/**
 * The differential suite: every case of cases.ts run with n8n's HTTP Request and with Resilient HTTP
 * Request (type changed, nothing else), compared by harness.ts, judged against deviations.ts.
 *
 * results.json (committed) holds each case's verdict and first unexplained paths; it feeds the
 * parity table. The test fails when it is out of date: UPDATE_PARITY=1 rewrites it. The detail of
 * each unexplained difference (both values) goes to report.local.json (not committed).
 * The suite passes while reporting unexplained differences; DIFFERENTIAL_STRICT=1 makes them fail.
 * DIFFERENTIAL_ONLY=<substring> runs only the matching cases (and never writes results.json).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CASES } from './cases';
import { DEVIATIONS, judge, type Judgement } from './deviations';
import { runCase } from './engine-run';
import { caseId, pool, type DiffCase, type Difference } from './harness';
import { startDiffServer, type DiffServer } from './server';
import { parityMarkdown } from './parity-table';
import { docFiles, expectDocSection } from '../../support/doc-section';

const RESULTS_FILE = path.join(__dirname, 'results.json');
const REPORT_FILE = path.join(__dirname, 'report.local.json');
const CONCURRENCY = 6;
const FIRST_PATHS = 8;

interface CaseResult {
	group: string;
	name: string;
	typeVersion: number;
	onError: string;
	verdict: string;
	deviations: string[];
	/** The first unexplained differing paths (values in report.local.json). */
	paths: string[];
	note?: string;
}

const only = process.env.DIFFERENTIAL_ONLY;
const selected = only ? CASES.filter((c) => caseId(c).includes(only)) : CASES;

/** What a committed results file holds: stable across runs (paths, never values). */
function resultOf(c: DiffCase, j: Judgement): CaseResult {
	// collapse array indices so 1 000 items that differ the same way read as one path
	const paths = [...new Set(j.unexplained.map((d) => d.path))].slice(0, FIRST_PATHS);
	return { group: c.group, name: c.name, typeVersion: c.typeVersion, onError: c.onError ?? 'stopWorkflow', verdict: j.verdict, deviations: j.deviations, paths, ...(c.note ? { note: c.note } : {}) };
}

function summarise(results: CaseResult[]) {
	const byGroup: Record<string, { cases: number; identical: number; deliberate: number; different: number }> = {};
	for (const r of results) {
		const g = (byGroup[r.group] ??= { cases: 0, identical: 0, deliberate: 0, different: 0 });
		g.cases++;
		if (r.verdict === 'identical') g.identical++;
		else if (r.verdict === 'different') g.different++;
		else g.deliberate++;
	}
	return byGroup;
}

const preview = (v: unknown) => {
	const s = JSON.stringify(v);
	return s === undefined ? '(absent)' : s.length > 400 ? `${s.slice(0, 400)}…` : s;
};

describe('differential: Resilient HTTP Request against n8n HTTP Request 4.0-4.4', () => {
	let server: DiffServer;
	beforeAll(async () => {
		server = await startDiffServer();
	});
	afterAll(async () => {
		await server.close();
	});

	it('every case has a unique name and a known group', () => {
		const ids = CASES.map(caseId);
		expect(new Set(ids).size).toBe(ids.length);
		expect(CASES.length).toBeGreaterThanOrEqual(300);
	});

	it('runs every case, reports each verdict and keeps results.json up to date', async () => {
		const harnessErrors: string[] = [];
		const details: Array<{ id: string; verdict: string; unexplained: Difference[] }> = [];
		const results = await pool(selected, CONCURRENCY, async (c, index) => {
			try {
				const pair = await runCase(c, server, String(index));
				const j = judge(pair.differences, c);
				if (j.unexplained.length > 0) details.push({ id: caseId(c), verdict: j.verdict, unexplained: j.unexplained.slice(0, 20).map((d) => ({ path: d.path, reference: preview(d.reference), resilient: preview(d.resilient) })) });
				return resultOf(c, j);
			} catch (error) {
				harnessErrors.push(`${caseId(c)}: ${(error as Error).stack ?? String(error)}`);
				return undefined;
			}
		});
		expect(harnessErrors).toEqual([]);
		const done = (results.filter(Boolean) as CaseResult[]).sort((a, b) => (a.group === b.group ? (a.name < b.name ? -1 : 1) : a.group < b.group ? -1 : 1));
		const summary = summarise(done);
		details.sort((a, b) => (a.id < b.id ? -1 : 1));
		writeFileSync(REPORT_FILE, `${JSON.stringify({ summary, details }, null, 2)}\n`);
		const table = Object.entries(summary).map(([group, s]) => `${group.padEnd(18)} ${String(s.cases).padStart(4)} cases  ${String(s.identical).padStart(4)} identical  ${String(s.deliberate).padStart(4)} deliberate  ${String(s.different).padStart(4)} different`);
		process.stdout.write(`\nDifferential suite (${done.length} cases; details in ${path.relative(process.cwd(), REPORT_FILE)})\n${table.join('\n')}\n`);

		if (!only) {
			const file = { deviations: DEVIATIONS.map(({ name, reason }) => ({ name, reason })), summary, cases: done };
			const text = `${JSON.stringify(file, null, '\t')}\n`;
			if (process.env.UPDATE_PARITY === '1') writeFileSync(RESULTS_FILE, text);
			else {
				let committed = '';
				try {
					committed = readFileSync(RESULTS_FILE, 'utf8');
				} catch {
					// no file yet
				}
				if (committed !== text) throw new Error(`${path.relative(process.cwd(), RESULTS_FILE)} is out of date with the differential suite: run \`UPDATE_PARITY=1 npx jest test/engine/differential\` and commit it`);
			}
			// the tables of docs/parity.md, from these results only
			expectDocSection('parity', parityMarkdown(file), docFiles(), { update: process.env.UPDATE_PARITY === '1', command: 'UPDATE_PARITY=1 npx jest test/engine/differential' });
		}
		if (process.env.DIFFERENTIAL_STRICT === '1') {
			expect(done.filter((r) => r.verdict === 'different').map((r) => `${r.group}/${r.name}: ${r.paths.join(', ')}`)).toEqual([]);
		}
	}, 240_000);
});
