/**
 * The parity tables of docs/parity.md, made from the differential suite's results: a row says
 * "same" only where every case of it gave HTTP Request's output, so no one can write a claim the
 * suite disagrees with.
 */
import { cell } from '../../support/doc-section';

interface CaseRow {
	group: string;
	name: string;
	typeVersion: number;
	verdict: string;
	deviations: string[];
	paths: string[];
}

export interface ResultsFile {
	deviations: Array<{ name: string; reason: string }>;
	cases: CaseRow[];
}

/** What a row of cases is about: the case name up to its first qualifier ("404 with JSON body", "multipart"). */
function subjectOf(name: string): string {
	return name.split(/[:(,]/)[0].trim();
}

function tally(cases: CaseRow[]) {
	const identical = cases.filter((c) => c.verdict === 'identical').length;
	const different = cases.filter((c) => c.verdict === 'different');
	const deliberate = cases.length - identical - different.length;
	const deviations = [...new Set(cases.flatMap((c) => (c.verdict === 'different' ? [] : c.deviations)))].sort();
	return { identical, deliberate, different, deviations };
}

/** "same", "same but for <deviations>", or "differs in n of m cases: <first paths>". */
function verdictOf(cases: CaseRow[]): string {
	const { identical, different, deviations } = tally(cases);
	if (different.length > 0) {
		const paths = [...new Set(different.flatMap((c) => c.paths.map((p) => p.replace(/\[\d+\]/g, '[]'))))].slice(0, 3);
		return `differs in ${different.length} of ${cases.length}: ${paths.map((p) => `\`${p}\``).join(', ')}`;
	}
	if (identical === cases.length) return 'same';
	return `same but for ${deviations.map((d) => `*${d}*`).join(', ')}`;
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
	const groups = new Map<string, T[]>();
	for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
	return groups;
}

export function parityMarkdown(results: ResultsFile): string {
	const byGroup = groupBy(results.cases, (c) => c.group);
	const summary = [...byGroup].map(([group, cases]) => {
		const t = tally(cases);
		return `| ${cell(group)} | ${cases.length} | ${t.identical} | ${t.deliberate} | ${t.different.length} |`;
	});
	const all = tally(results.cases);
	const rows = [...groupBy(results.cases, (c) => `${c.group}\u0000${subjectOf(c.name)}`)].map(([key, cases]) => {
		const [group, subject] = key.split('\u0000');
		const versions = [...new Set(cases.map((c) => c.typeVersion))].sort().join(', ');
		return `| ${cell(group)} | ${cell(subject)} | ${versions} | ${cases.length} | ${cell(verdictOf(cases))} |`;
	});
	const deviations = results.deviations.map((d) => `- *${d.name}*: ${d.reason}`);
	return [
		`${results.cases.length} cases, each run with n8n's HTTP Request (the typeVersion in the row) and with this node, its type changed and nothing else: ${all.identical} identical, ${all.deliberate} different only where this node differs on purpose, ${all.different.length} with a difference not yet explained.`,
		'',
		'| Group | Cases | Identical | Deliberate difference | Not yet explained |',
		'|---|---|---|---|---|',
		...summary,
		'',
		'The deliberate differences:',
		'',
		...(deviations.length > 0 ? deviations : ['- none']),
		'',
		'| Group | Cases of | HTTP Request versions | Cases | This node |',
		'|---|---|---|---|---|',
		...rows,
	].join('\n');
}
