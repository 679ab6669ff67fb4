import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { docFiles, expectDocSection, findDocSection, markdownTable, readDocSection, replaceDocSection } from '../support/doc-section';

const section = (name: string, body: string) => [`<!-- BEGIN generated:${name} (npm run readme:tested) -->`, body, `<!-- END generated:${name} -->`].join('\n');
const page = ['# Title', section('x', 'old'), 'tail'].join('\n');

describe('generated doc sections', () => {
	it('reads and replaces the text between the markers only', () => {
		expect(readDocSection('x', page)).toBe('old');
		const updated = replaceDocSection(page, 'x', 'new\n');
		expect(readDocSection('x', updated)).toBe('new');
		expect(updated.startsWith('# Title\n')).toBe(true);
		expect(updated.endsWith('<!-- END generated:x -->\ntail')).toBe(true);
	});

	it('refuses a section the page does not have', () => {
		expect(readDocSection('y', page)).toBeUndefined();
		expect(() => replaceDocSection(page, 'y', 'z', 'docs/a.md')).toThrow('docs/a.md has no section "y"');
	});

	it('escapes pipes and newlines in table cells', () => {
		expect(markdownTable(['a', 'b'], [['x|y', 'line\nbreak']])).toBe('| a | b |\n|---|---|\n| x\\|y | line break |');
	});

	describe('in README.md and docs/*.md', () => {
		let root: string;
		const write = (file: string, text: string) => writeFileSync(path.join(root, file), text);
		beforeEach(() => {
			root = mkdtempSync(path.join(tmpdir(), 'doc-section-'));
			mkdirSync(path.join(root, 'docs'));
			write('README.md', '# Readme\n');
			write('docs/a.md', ['# A', section('in-a', 'a says')].join('\n'));
			write('docs/b.md', ['# B', section('in-b', 'b says'), section('twice', 'here')].join('\n'));
			write('docs/c.md', ['# C', section('twice', 'and here')].join('\n'));
			write('docs/notes.txt', section('in-a', 'not a page'));
		});
		afterEach(() => {
			rmSync(root, { recursive: true, force: true });
			delete process.env.UPDATE_README;
		});

		it('searches README.md and every docs/*.md, and only those', () => {
			expect(docFiles(root).map((f) => path.relative(root, f))).toEqual(['README.md', 'docs/a.md', 'docs/b.md', 'docs/c.md']);
		});

		it('finds each section in the page that holds it', () => {
			expect(path.relative(root, findDocSection('in-a', docFiles(root)).file)).toBe('docs/a.md');
			expect(path.relative(root, findDocSection('in-b', docFiles(root)).file)).toBe('docs/b.md');
			expect(() => expectDocSection('in-b', 'b says', docFiles(root))).not.toThrow();
			expect(() => expectDocSection('in-b', 'b said', docFiles(root))).toThrow(/docs\/b\.md section "in-b" is out of date/);
		});

		it('fails on a section no page holds, and on markers in two files', () => {
			expect(() => findDocSection('nowhere', docFiles(root))).toThrow(/no page holds the section "nowhere"/);
			expect(() => findDocSection('twice', docFiles(root))).toThrow(/the section "twice" has markers in 2 files: .*docs\/b\.md, .*docs\/c\.md/);
		});

		it('fails on a section with one marker only', () => {
			write('docs/c.md', '<!-- END generated:half -->\n');
			expect(() => expectDocSection('half', 'x', docFiles(root))).toThrow(/broken section "half"/);
		});

		it('with UPDATE_README=1 rewrites the section in its own page and leaves the others alone', () => {
			process.env.UPDATE_README = '1';
			expectDocSection('in-b', 'b says now', docFiles(root));
			expect(readDocSection('in-b', readFileSync(path.join(root, 'docs/b.md'), 'utf8'))).toBe('b says now');
			expect(readFileSync(path.join(root, 'docs/a.md'), 'utf8')).toBe(['# A', section('in-a', 'a says')].join('\n'));
			expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toBe('# Readme\n');
		});
	});
});
