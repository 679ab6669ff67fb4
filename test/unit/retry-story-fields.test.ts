/**
 * Every field the retry story can hold is documented: the table "Fields of the story" in
 * docs/retries.md lists exactly the fields of the story's type (RetryStory, its history's
 * AttemptRecord and their traffic note), read from nodes/shared/core/retry-story.ts by TypeScript's
 * own parser, so a field added to the story without a line in the docs fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../support/doc-section';

const SOURCE = path.join(REPO_ROOT, 'nodes/shared/core/retry-story.ts');

/** The property names of each interface of the file. */
function interfaceFields(file: string): Map<string, string[]> {
	const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
	const fields = new Map<string, string[]>();
	source.forEachChild((node) => {
		if (ts.isInterfaceDeclaration(node)) fields.set(node.name.text, node.members.filter(ts.isPropertySignature).map((m) => m.name.getText(source)));
	});
	return fields;
}

/** The story's fields as paths: `attempts`, `history[].status`, `history[].traffic.waitedMs`. */
function storyFieldPaths(): string[] {
	const fields = interfaceFields(SOURCE);
	const of = (name: string) => {
		const found = fields.get(name);
		if (!found) throw new Error(`${SOURCE} has no interface ${name}`);
		return found;
	};
	return [
		...of('RetryStory'),
		...of('AttemptRecord').map((f) => `history[].${f}`),
		...of('TrafficNote').map((f) => `history[].traffic.${f}`),
	];
}

/** The fields the docs' table names: the backticked names in its rows' first cells. */
function documentedFields(): string[] {
	const page = readFileSync(path.join(REPO_ROOT, 'docs/retries.md'), 'utf8');
	const section = page.split('### Fields of the story')[1]?.split(/\n#{2,3} /)[0];
	if (section === undefined) throw new Error('docs/retries.md has no section "Fields of the story"');
	return section
		.split('\n')
		.filter((line) => line.startsWith('| `'))
		.flatMap((line) => [...line.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]));
}

describe('the retry story, field by field in the docs', () => {
	it('reads the story type: the fields a reader meets', () => {
		expect(storyFieldPaths()).toEqual(expect.arrayContaining(['attempts', 'idempotencyKeyOwner', 'history', 'history[].status', 'history[].traffic.waitedFor']));
	});

	it('documents every field of the story, and no field it does not have', () => {
		expect([...documentedFields()].sort()).toEqual([...storyFieldPaths()].sort());
	});
});
