/**
 * The example workflows' sticky notes, as the editor lays them out: no note overlaps another or
 * covers a node (its label included), and each note is tall enough for its text by a rough line
 * estimate. The estimate is calibrated on the heights n8n 2.41.1's editor gave the notes' text in
 * a real browser (test/e2e/panel-defaults.e2e.mjs measures them and fails on a cut-off note): it
 * is never below them and at most about a fifth above, so a note that passes here has its text
 * shown whole there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/doc-section';

interface WorkflowNode {
	name: string;
	type: string;
	position: [number, number];
	parameters: { content?: string; width?: number; height?: number };
}

interface Box {
	left: number;
	top: number;
	right: number;
	bottom: number;
}

const STICKY = 'n8n-nodes-base.stickyNote';
/** n8n's default sticky note size. */
const DEFAULT_NOTE = { width: 240, height: 160 };
/**
 * A node is 100 x 100 from its position; its name is written below it in a box 200 wide, centred,
 * a line of about 21 per 25 characters (as n8n 2.41.1's canvas draws them: the e2e test prints the boxes).
 */
const NODE = { size: 100, labelGap: 7, labelLine: 21, labelCharWidth: 8, labelWidth: 200 };

/** The layout constants of the estimate, fitted to the browser's heights (in canvas units). */
const TEXT = { charWidth: 7.2, lineHeight: 19, h2Line: 28, h3Line: 26, blankLine: 14, padding: 12, listIndent: 16 } as const;

const WORKFLOWS = readdirSync(path.join(REPO_ROOT, 'workflows'))
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => ({ file, nodes: (JSON.parse(readFileSync(path.join(REPO_ROOT, 'workflows', file), 'utf8')) as { nodes: WorkflowNode[] }).nodes }));

function noteBox(note: WorkflowNode): Box {
	const [x, y] = note.position;
	return { left: x, top: y, right: x + (note.parameters.width ?? DEFAULT_NOTE.width), bottom: y + (note.parameters.height ?? DEFAULT_NOTE.height) };
}

/** The node's body and its name below it. */
function nodeBoxes(node: WorkflowNode): Box[] {
	const [x, y] = node.position;
	const lines = Math.ceil((node.name.length * NODE.labelCharWidth) / NODE.labelWidth);
	const centre = x + NODE.size / 2;
	const labelTop = y + NODE.size + NODE.labelGap;
	return [
		{ left: x, top: y, right: x + NODE.size, bottom: y + NODE.size },
		{ left: centre - NODE.labelWidth / 2, top: labelTop, right: centre + NODE.labelWidth / 2, bottom: labelTop + lines * NODE.labelLine },
	];
}

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** What a line reads as: links as their text, no emphasis or code marks. */
const visible = (line: string) => line.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\*\*|\*|`/g, '');

/** The height the note's markdown takes at its width: wrapped lines of text, headings, lists, code. */
export function estimatedTextHeight(content: string, width: number): number {
	const usable = width - 2 * TEXT.padding;
	const wrapped = (text: string, charWidth: number, room = usable) => Math.max(1, Math.ceil((visible(text).length * charWidth) / room));
	let height = TEXT.padding;
	let inCode = false;
	for (const line of content.split('\n')) {
		if (line.startsWith('```')) {
			inCode = !inCode;
			height += TEXT.blankLine / 2;
		} else if (inCode) height += TEXT.lineHeight;
		else if (line.trim() === '') height += TEXT.blankLine;
		else if (line.startsWith('## ')) height += TEXT.h2Line * wrapped(line.slice(3), TEXT.charWidth * 1.45);
		else if (line.startsWith('### ')) height += TEXT.h3Line * wrapped(line.slice(4), TEXT.charWidth * 1.2);
		else if (/^\s*[-*] /.test(line)) height += TEXT.lineHeight * wrapped(line, TEXT.charWidth, usable - TEXT.listIndent);
		else height += TEXT.lineHeight * wrapped(line, TEXT.charWidth);
	}
	return height;
}

describe.each(WORKFLOWS)('$file', ({ nodes }) => {
	const notes = nodes.filter((n) => n.type === STICKY);
	const others = nodes.filter((n) => n.type !== STICKY);

	it('no sticky note overlaps another', () => {
		const pairs = notes.flatMap((a, k) => notes.slice(k + 1).filter((b) => overlaps(noteBox(a), noteBox(b))).map((b) => `${a.name} / ${b.name}`));
		expect(pairs).toEqual([]);
	});

	it('no sticky note covers a node or its name', () => {
		const covered = notes.flatMap((note) => others.filter((node) => nodeBoxes(node).some((box) => overlaps(noteBox(note), box))).map((node) => `${note.name} covers ${node.name}`));
		expect(covered).toEqual([]);
	});

	it('every sticky note is tall enough for its text', () => {
		const cut = notes
			.map((note) => ({ note: note.name, height: noteBox(note).bottom - noteBox(note).top, text: Math.ceil(estimatedTextHeight(note.parameters.content ?? '', noteBox(note).right - noteBox(note).left)) }))
			.filter(({ height, text }) => text > height);
		expect(cut).toEqual([]);
	});
});

describe('the text estimate', () => {
	it('grows with the text and shrinks with the width', () => {
		const paragraph = 'word '.repeat(60);
		expect(estimatedTextHeight(paragraph, 300)).toBeGreaterThan(estimatedTextHeight(paragraph, 600));
		expect(estimatedTextHeight(`${paragraph}\n\n${paragraph}`, 300)).toBeGreaterThan(estimatedTextHeight(paragraph, 300));
		expect(estimatedTextHeight('## A heading', 300)).toBeGreaterThan(estimatedTextHeight('A line', 300));
	});

	it('is a line of text and the padding for one short line', () => {
		expect(estimatedTextHeight('Short', 240)).toBe(TEXT.padding + TEXT.lineHeight);
	});
});
