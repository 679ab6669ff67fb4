/**
 * Keeps generated sections of README.md in step with the tests that prove them. A test builds the
 * markdown of its section from its own case table (every row is a case the test asserted), and
 * `expectReadmeSection` fails when README.md says something else. `npm run readme:tested`
 * (UPDATE_README=1) rewrites the sections instead.
 *
 * In README.md a section is delimited by
 *   <!-- BEGIN generated:<name> (npm run readme:tested) -->
 *   <!-- END generated:<name> -->
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const README_PATH = path.join(__dirname, '../../README.md');

const begin = (name: string) => `<!-- BEGIN generated:${name} (npm run readme:tested) -->`;
const end = (name: string) => `<!-- END generated:${name} -->`;

/** Escapes what would break a markdown table cell. */
export function cell(text: unknown): string {
	return String(text).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function markdownTable(header: string[], rows: unknown[][]): string {
	return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

/** The text between the markers, or undefined when README.md has no such section. */
export function readReadmeSection(name: string, readme = readFileSync(README_PATH, 'utf8')): string | undefined {
	const start = readme.indexOf(begin(name));
	const stop = readme.indexOf(end(name));
	if (start < 0 || stop < start) return undefined;
	return readme.slice(start + begin(name).length, stop).trim();
}

export function replaceReadmeSection(readme: string, name: string, markdown: string): string {
	const start = readme.indexOf(begin(name));
	const stop = readme.indexOf(end(name));
	if (start < 0 || stop < start) throw new Error(`README.md has no section "${name}": add the lines\n${begin(name)}\n${end(name)}\nwhere it belongs`);
	return `${readme.slice(0, start)}${begin(name)}\n${markdown.trim()}\n${readme.slice(stop)}`;
}

/**
 * With UPDATE_README=1 writes `markdown` into the section; otherwise throws unless README.md
 * already holds exactly it.
 */
export function expectReadmeSection(name: string, markdown: string): void {
	const readme = readFileSync(README_PATH, 'utf8');
	if (process.env.UPDATE_README === '1') {
		writeFileSync(README_PATH, replaceReadmeSection(readme, name, markdown));
		return;
	}
	const current = readReadmeSection(name, readme);
	if (current === undefined) throw new Error(`README.md has no section "${name}" (markers ${begin(name)} ... ${end(name)})`);
	if (current !== markdown.trim()) {
		throw new Error(`README.md section "${name}" is out of date with the tests: run \`npm run readme:tested\` and commit README.md`);
	}
}
