#!/usr/bin/env node
/**
 * Exported names without a user: every export of nodes/ and cli/ (but the files the options skip)
 * and the files that import it. Prints, per export that no other source file imports: "unused"
 * (not used in its own file either: dead), "local" (used only in its own file: drop `export`),
 * "tests" (imported by tests only: a user only if the test tests that very name), and "js" when a
 * JavaScript file of the repository (bin, e2e, bench, scripts) names it. Ends with the count.
 * Usage: node scripts/unused-exports.js [--all] [--skip <path prefix>]...
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const ts = require('typescript');

const args = process.argv.slice(2);
const skip = [];
for (let i = 0; i < args.length; i++) if (args[i] === '--skip') skip.push(args[++i]);

const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => console.error(d.messageText) });
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();
const rel = (file) => path.relative(process.cwd(), file).split(path.sep).join('/');
const ours = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !rel(f.fileName).startsWith('node_modules/'));

/** `${file}#${name}` of an export -> the files that import it. */
const importers = new Map();
function use(symbol, by) {
	let target = symbol;
	while (target && target.flags & ts.SymbolFlags.Alias) target = checker.getImmediateAliasedSymbol(target);
	for (const declaration of target?.declarations ?? []) {
		const key = `${rel(declaration.getSourceFile().fileName)}#${target.name}`;
		if (!importers.has(key)) importers.set(key, new Set());
		importers.get(key).add(by);
	}
	// a re-export is a use of what it re-exports, and the re-exported name is used as well
	if (symbol !== target) for (const declaration of symbol.declarations ?? []) if (ts.isExportSpecifier(declaration)) use(checker.getImmediateAliasedSymbol(symbol), by);
}
for (const file of ours) {
	const by = rel(file.fileName);
	const visit = (node) => {
		if (ts.isImportSpecifier(node) || ts.isExportSpecifier(node) || ts.isImportClause(node)) {
			const symbol = checker.getSymbolAtLocation(node.name ?? node);
			if (symbol) use(symbol, by);
		} else if (ts.isNamespaceImport(node)) {
			const module = checker.getSymbolAtLocation(node.parent.parent.moduleSpecifier);
			for (const exported of module ? checker.getExportsOfModule(module) : []) use(exported, by);
		} else if (ts.isImportTypeNode(node) && node.qualifier) {
			const symbol = checker.getSymbolAtLocation(node.qualifier);
			if (symbol) use(symbol, by);
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
}

const js = execFileSync('git', ['ls-files', '*.js', '*.mjs', '*.cjs'], { encoding: 'utf8' })
	.split('\n')
	.filter((f) => f && fs.existsSync(f) && !f.startsWith('node_modules/'))
	.map((f) => fs.readFileSync(f, 'utf8'))
	.join('\n');

/** How often a name occurs as an identifier in the file's code (its declaration included). */
function occurrences(file, name) {
	let n = 0;
	const visit = (node) => {
		if (ts.isIdentifier(node) && node.text === name) n++;
		ts.forEachChild(node, visit);
	};
	visit(file);
	return n;
}

const rows = [];
for (const file of ours) {
	const name = rel(file.fileName);
	if (!/^(nodes|cli)\//.test(name) || skip.some((s) => name.startsWith(s))) continue;
	const module = checker.getSymbolAtLocation(file);
	if (!module) continue;
	for (const exported of checker.getExportsOfModule(module)) {
		const local = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
		// a re-export is the re-exporting file's only if it declares the name
		if (!(local.declarations ?? []).some((d) => d.getSourceFile() === file)) continue;
		const users = [...(importers.get(`${name}#${local.name}`) ?? [])].filter((f) => f !== name);
		if (users.some((f) => !f.startsWith('test/'))) continue;
		const inJs = new RegExp(`\\b${exported.name}\\b`).test(js) ? ' js' : '';
		const inFile = occurrences(file, exported.name) > 1;
		const kind = users.length > 0 ? `tests${inFile ? '' : ', not used in its file'} (${users.join(', ')})` : inFile ? 'local' : 'unused';
		rows.push(`${name}  ${exported.name}  ${kind}${inJs}`);
	}
}
// the exports tests alone import are listed with --all: a user only when the test tests that very name
const all = args.includes('--all');
for (const row of rows.sort()) if (all || !row.split('  ')[2].startsWith('tests')) console.log(row);
const count = (kind) => rows.filter((r) => r.split('  ')[2].startsWith(kind)).length;
console.log(`${rows.length} export(s) no other source file imports: ${count('unused')} unused, ${count('local')} used only in their own file, ${count('tests')} imported by tests only`);
// a check (npm run lint): an export nothing uses, or that only its own file uses, fails it
process.exitCode = count('unused') + count('local') > 0 ? 1 : 0;
