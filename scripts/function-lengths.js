#!/usr/bin/env node
/**
 * Functions longer than a screen: every function, method and arrow function of the given folders
 * (default nodes/ and cli/), counted from its first line to its last, longest first.
 * Usage: node scripts/function-lengths.js [--max 60] [folder...]
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const args = process.argv.slice(2);
const maxAt = args.indexOf('--max');
const max = maxAt >= 0 ? Number(args.splice(maxAt, 2)[1]) : 60;
const roots = args.length > 0 ? args : ['nodes', 'cli'];

function files(dir) {
	if (!fs.statSync(dir).isDirectory()) return [dir];
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) return files(p);
		return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
	});
}

function nameOf(node) {
	if (ts.isConstructorDeclaration(node)) return 'constructor';
	if (node.name && ts.isIdentifier(node.name)) return node.name.text;
	if (node.name) return node.name.getText();
	const parent = node.parent;
	if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
	if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
	if (parent && ts.isPropertyDeclaration(parent)) return parent.name.getText();
	return '(anonymous)';
}

const found = [];
for (const file of roots.flatMap(files)) {
	const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
	const visit = (node) => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
			const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
			found.push({ file, name: nameOf(node), lines: end - start + 1, line: start + 1 });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
}
const long = found.filter((f) => f.lines > max).sort((a, b) => b.lines - a.lines);
for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
console.log(`${long.length} function(s) over ${max} lines`);
// a check (npm run lint): a function longer than a screen fails it
process.exitCode = long.length > 0 ? 1 : 0;
