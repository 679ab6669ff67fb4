/**
 * Keeps generated sections of the docs (README.md and docs/*.md) in step with the tests that prove
 * them. A test builds the markdown of its section from its own case table (every row is a case the
 * test asserted), and `expectDocSection` fails when the page that holds the section says something
 * else. `npm run readme:tested` (UPDATE_README=1) rewrites the sections instead.
 *
 * A section is delimited by
 *   <!-- BEGIN generated:<name> (npm run readme:tested) -->
 *   <!-- END generated:<name> -->
 * in whichever of README.md and docs/*.md holds it: a test names the section, not the page, so a
 * section can move between pages without touching its test. Markers of one name in two files are
 * an error.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.join(__dirname, '../..');

const begin = (name: string) => `<!-- BEGIN generated:${name} (npm run readme:tested) -->`;
const end = (name: string) => `<!-- END generated:${name} -->`;

/** Escapes what would break a markdown table cell. */
export function cell(text: unknown): string {
	return String(text).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function markdownTable(header: string[], rows: unknown[][]): string {
	return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

/** README.md and every docs/*.md of `root`: the pages a generated section may live in. */
export function docFiles(root = REPO_ROOT): string[] {
	const docs = readdirSync(path.join(root, 'docs'))
		.filter((file) => file.endsWith('.md'))
		.sort()
		.map((file) => path.join(root, 'docs', file));
	return [path.join(root, 'README.md'), ...docs];
}

/** The text between the markers, or undefined when `text` has no such section. */
export function readDocSection(name: string, text: string): string | undefined {
	const start = text.indexOf(begin(name));
	const stop = text.indexOf(end(name));
	if (start < 0 || stop < start) return undefined;
	return text.slice(start + begin(name).length, stop).trim();
}

export function replaceDocSection(text: string, name: string, markdown: string, file = 'the page'): string {
	const start = text.indexOf(begin(name));
	const stop = text.indexOf(end(name));
	if (start < 0 || stop < start) throw new Error(`${file} has no section "${name}": add the lines\n${begin(name)}\n${end(name)}\nwhere it belongs`);
	return `${text.slice(0, start)}${begin(name)}\n${markdown.trim()}\n${text.slice(stop)}`;
}

/**
 * The one file of `files` that holds the section's markers, and its text. Throws when no file
 * holds them, or when more than one holds either marker.
 */
export function findDocSection(name: string, files = docFiles()): { file: string; text: string } {
	const holding = files
		.map((file) => ({ file, text: readFileSync(file, 'utf8') }))
		.filter(({ text }) => text.includes(begin(name)) || text.includes(end(name)));
	const relative = (file: string) => path.relative(REPO_ROOT, file);
	if (holding.length === 0) {
		throw new Error(`no page holds the section "${name}" (markers ${begin(name)} ... ${end(name)}); searched ${files.map(relative).join(', ')}`);
	}
	if (holding.length > 1) throw new Error(`the section "${name}" has markers in ${holding.length} files: ${holding.map((h) => relative(h.file)).join(', ')}; keep it in one`);
	return holding[0];
}

/**
 * With UPDATE_README=1 writes `markdown` into the section, in the page that holds it; otherwise
 * throws unless that page already holds exactly it.
 */
/** How a section is brought up to date: whether to write it now, and the command that does. */
export interface SectionUpdate {
	update: boolean;
	command: string;
}

/** The README sections' way, read when a test asks (a test may set UPDATE_README itself). */
const readmeUpdate = (): SectionUpdate => ({ update: process.env.UPDATE_README === '1', command: 'npm run readme:tested' });

export function expectDocSection(name: string, markdown: string, files = docFiles(), how: SectionUpdate = readmeUpdate()): void {
	const { file, text } = findDocSection(name, files);
	const page = path.relative(REPO_ROOT, file);
	if (how.update) {
		writeFileSync(file, replaceDocSection(text, name, markdown, page));
		return;
	}
	const current = readDocSection(name, text);
	if (current === undefined) throw new Error(`${page} has a broken section "${name}": it needs both markers, BEGIN before END (${begin(name)} ... ${end(name)})`);
	if (current !== markdown.trim()) {
		throw new Error(`${page} section "${name}" is out of date with the tests: run \`${how.command}\` and commit ${page}`);
	}
}
