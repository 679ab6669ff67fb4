/**
 * The README's n8n versions table, generated from the last recorded run of scripts/n8n-versions.sh
 * (test/e2e/n8n-versions.json), and held to the tested range: the record covers exactly the versions
 * with a lock in scripts/n8n-lock/, each passed, the oldest is the floor the node names in its error
 * on an older n8n, the pinned one is scripts/n8n-env.sh's, and the two that .ci/run checks at every
 * commit (the pinned n8n's whole suite, the floor's version checks) are the ones marked so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OLDEST_N8N } from '../../nodes/ResilientHttpRequest/auth/credential-checks';
import { expectDocSection, markdownTable, REPO_ROOT } from '../support/doc-section';

interface VersionRun {
	version: string;
	pinned: boolean;
	/** .ci/run checks it at every commit. */
	ci: boolean;
	result: string;
	testsPassed: number;
	testsFailed: number;
	seconds: number;
}
interface Record {
	ranAt: string;
	node: string;
	package: string;
	files: string[];
	versions: VersionRun[];
}

const record = JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/e2e/n8n-versions.json'), 'utf8')) as Record;
const byNumber = (a: string, b: string) => {
	const [x, y] = [a, b].map((v) => v.split('.').map(Number));
	return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};
const range = readdirSync(path.join(REPO_ROOT, 'scripts/n8n-lock'), { withFileTypes: true })
	.filter((entry) => entry.isDirectory())
	.map((entry) => entry.name)
	.sort(byNumber);
const pinned = /N8N_VERSION="\$\{N8N_VERSION:-([0-9.]+)\}"/.exec(readFileSync(path.join(REPO_ROOT, 'scripts/n8n-env.sh'), 'utf8'))?.[1];

test('the record covers the tested range, the versions with a lock, oldest first', () => {
	expect(record.versions.map((v) => v.version)).toEqual(range);
	expect(range.length).toBeGreaterThanOrEqual(3);
});

test('every version of the range passed every check, with tests run', () => {
	for (const run of record.versions) {
		expect({ version: run.version, result: run.result, failed: run.testsFailed }).toEqual({ version: run.version, result: 'passed', failed: 0 });
		expect(run.testsPassed).toBeGreaterThan(0);
	}
});

test("the oldest version is the floor the node names on an older n8n; the pinned one is scripts/n8n-env.sh's", () => {
	expect(range[0]).toBe(OLDEST_N8N);
	expect(pinned).toBeDefined();
	expect(record.versions.filter((v) => v.pinned).map((v) => v.version)).toEqual([pinned]);
});

test('.ci/run checks the floor (its version checks) and the pinned n8n (every test) at every commit, and the record says so', () => {
	const ci = readFileSync(path.join(REPO_ROOT, '.ci/run'), 'utf8');
	// installed and checked in the background, beside the end-to-end tests; the run waits for it and fails with it
	expect(ci).toMatch(/exec bash scripts\/n8n-versions\.sh --floor'/);
	expect(ci).toMatch(/wait "\$versions_pid" \|\| versions_status=\$\?\n.*\n\[ "\$versions_status" = 0 \] \|\| \{/);
	expect(record.versions.filter((v) => v.ci).map((v) => v.version)).toEqual([range[0], pinned]);
});

test('the README lists the versions as the run recorded them', () => {
	const role = (run: VersionRun, k: number) => {
		if (run.pinned) return 'pinned: every test runs on it';
		if (k === 0) return 'oldest supported';
		return k === record.versions.length - 1 ? 'newest tested' : 'between';
	};
	const files = record.files.map((file) => `\`${path.basename(file)}\``).join(', ');
	const table = markdownTable(
		['n8n', 'In the range', 'Version checks', 'Time', 'Checked in CI'],
		record.versions.map((run, k) => [run.version, role(run, k), `${run.result}: ${run.testsPassed} tests, ${run.testsFailed} failed`, `${run.seconds} s`, run.pinned ? 'every commit: every test' : run.ci ? 'every commit: the version checks' : 'no: this recorded run']),
	);
	const footer = `Recorded by \`scripts/n8n-versions.sh --record\` on ${record.ranAt.slice(0, 10)} (Node ${record.node}, package ${record.package}); the checks: ${files}. Time includes the install of a version not yet cached.`;
	expectDocSection('n8n-versions', `${table}\n\n${footer}`);
});
