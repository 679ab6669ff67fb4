/**
 * `promtool check metrics` (Debian's prometheus package) on a text exposition: Prometheus' own
 * parser and linter. Where promtool is missing the check is skipped with the reason, unless
 * RH_REQUIRE_PROMTOOL=1 (CI: .ci/run installs it, scripts/promtool.sh), where a missing promtool
 * fails the test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PROMTOOL = process.env.RH_PROMTOOL ?? 'promtool';

/** Whether promtool runs here; throws when it must (RH_REQUIRE_PROMTOOL=1) and does not. */
export function promtoolAvailable(): boolean {
	const probe = spawnSync(PROMTOOL, ['--version'], { encoding: 'utf8' });
	const found = probe.error === undefined && probe.status === 0;
	if (!found && process.env.RH_REQUIRE_PROMTOOL === '1') throw new Error(`RH_REQUIRE_PROMTOOL=1 but ${PROMTOOL} does not run (${probe.error?.message ?? probe.stderr}): install Debian's prometheus package (bash scripts/promtool.sh ensure)`);
	return found;
}

/** What `promtool check metrics` says of the text: its exit status and its findings (problems and lint). */
export function promtoolCheckMetrics(text: string): { status: number | null; output: string } {
	const run = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
	if (run.error) throw run.error;
	return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

/** What `promtool check rules` says of PromQL expressions, each made a recording rule: Prometheus' own parser on them. */
export function promtoolCheckExpressions(expressions: readonly string[]): { status: number | null; output: string } {
	const dir = mkdtempSync(path.join(tmpdir(), 'rh-promql-'));
	try {
		const rules = expressions.map((expr, i) => `      - record: check:expression_${i}\n        expr: ${JSON.stringify(expr)}`).join('\n');
		const file = path.join(dir, 'rules.yml');
		writeFileSync(file, `groups:\n  - name: check\n    rules:\n${rules}\n`);
		const run = spawnSync(PROMTOOL, ['check', 'rules', file], { encoding: 'utf8' });
		if (run.error) throw run.error;
		return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** The samples of a text exposition by series (`name{labels}` as written), for the tests' numbers; promtool is the parser that judges the text. */
export function samplesOf(text: string): Map<string, number> {
	const samples = new Map<string, number>();
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('#')) continue;
		const at = line.lastIndexOf(' ');
		samples.set(line.slice(0, at), Number(line.slice(at + 1)));
	}
	return samples;
}
