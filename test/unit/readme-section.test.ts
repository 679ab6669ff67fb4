import { markdownTable, readReadmeSection, replaceReadmeSection } from '../support/readme-section';

const readme = ['# Title', '<!-- BEGIN generated:x (npm run readme:tested) -->', 'old', '<!-- END generated:x -->', 'tail'].join('\n');

describe('generated README sections', () => {
	it('reads and replaces the text between the markers only', () => {
		expect(readReadmeSection('x', readme)).toBe('old');
		const updated = replaceReadmeSection(readme, 'x', 'new\n');
		expect(readReadmeSection('x', updated)).toBe('new');
		expect(updated.startsWith('# Title\n')).toBe(true);
		expect(updated.endsWith('<!-- END generated:x -->\ntail')).toBe(true);
	});

	it('refuses a section README.md does not have', () => {
		expect(readReadmeSection('y', readme)).toBeUndefined();
		expect(() => replaceReadmeSection(readme, 'y', 'z')).toThrow('README.md has no section "y"');
	});

	it('escapes pipes and newlines in table cells', () => {
		expect(markdownTable(['a', 'b'], [['x|y', 'line\nbreak']])).toBe('| a | b |\n|---|---|\n| x\\|y | line break |');
	});
});
