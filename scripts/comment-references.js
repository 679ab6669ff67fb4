#!/usr/bin/env node
/**
 * Comments that name what does not exist: every file name (`something.ts`) and every function
 * (`name()`) a comment in nodes/ or cli/ mentions must be in the tree: a tracked file, a name the
 * code (nodes, cli, credentials, test, scripts) uses, or, for what a comment cites of n8n, a name
 * in n8n's packages. Prints the ones it cannot find; exits 1 when there are any.
 * Usage: node scripts/comment-references.js [folder...]
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const ts = require('typescript');

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['nodes', 'cli'];
const tracked = execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').filter(Boolean);
const tsFiles = (prefixes) => tracked.filter((f) => prefixes.some((p) => f.startsWith(`${p}/`)) && /\.(ts|js|mjs)$/.test(f) && fs.existsSync(f));

/** The comments and the code tokens of a file. */
function split(file) {
	const text = fs.readFileSync(file, 'utf8');
	const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
	const comments = [];
	const identifiers = new Set();
	for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
		if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia) {
			comments.push({ text: scanner.getTokenText(), line: text.slice(0, scanner.getTokenStart()).split('\n').length });
		} else if (token === ts.SyntaxKind.Identifier || token === ts.SyntaxKind.PrivateIdentifier) identifiers.add(scanner.getTokenValue().replace(/^#/, ''));
		else if (token === ts.SyntaxKind.StringLiteral || token === ts.SyntaxKind.NoSubstitutionTemplateLiteral) for (const w of scanner.getTokenValue().match(/[A-Za-z_$][\w$]*/g) ?? []) identifiers.add(w);
	}
	return { comments, identifiers };
}

const codeNames = new Set();
for (const file of tsFiles(['nodes', 'cli', 'credentials', 'test', 'scripts'])) for (const name of split(file).identifiers) codeNames.add(name);
const basenames = new Set(tracked.map((f) => path.basename(f)));

/** n8n's own files and names, for comments that cite n8n (read lazily: it is large). */
let n8n;
function n8nKnows(name, isFile) {
	if (!n8n) {
		n8n = { files: new Set(), text: '' };
		const dirs = ['n8n-core', 'n8n-workflow', 'n8n-nodes-base', '@n8n'].map((d) => path.join('node_modules', d)).filter((d) => fs.existsSync(d));
		const out = execFileSync('find', [...dirs, '-name', '*.js', '-not', '-path', '*/node_modules/*/node_modules/*'], { encoding: 'utf8', maxBuffer: 1 << 28 });
		n8n.list = out.split('\n').filter(Boolean);
		for (const f of n8n.list) n8n.files.add(path.basename(f).replace(/\.js$/, '.ts'));
	}
	if (isFile) return n8n.files.has(name);
	try {
		execFileSync('grep', ['-rqw', '--include=*.js', name, ...['n8n-core', 'n8n-workflow', 'n8n-nodes-base', '@n8n/n8n-nodes-langchain'].map((d) => path.join('node_modules', d))]);
		return true;
	} catch {
		return false;
	}
}

const JS_BUILTINS = new Set(Object.getOwnPropertyNames(globalThis).concat(['toJSON', 'toString', 'fetch', 'require', 'setTimeout', 'setInterval', 'JSON', 'parse', 'stringify']));
const missing = [];
for (const file of tsFiles(roots)) {
	for (const comment of split(file).comments) {
		// a path cut at a hyphen by the line's end reads whole again
		const text = comment.text.replace(/-\n\s*(?:\*|\/\/)\s*/g, '-');
		const { line } = comment;
		for (const { 0: ref, index } of text.matchAll(/[\w./-]*\w\.(?:ts|js|mjs|json|md)\b/g)) {
			if (text[index - 1] === '<' || text[index - 1] === '>') continue; // a placeholder: <workflow.json>, <name>.resilient.json
			const base = path.basename(ref);
			// a path must be a tracked file's (its end); a bare name any tracked file's, or n8n's
			const known = ref.includes('/') ? tracked.some((f) => f === ref || f.endsWith(`/${ref}`)) : basenames.has(base) || n8nKnows(base.replace(/\.js$/, '.ts'), true);
			if (known) continue;
			missing.push(`${file}:${line}  file ${ref}`);
		}
		for (const [, call] of text.matchAll(/([A-Za-z_$][\w$.]*)\(\)/g)) {
			const name = call.split('.').pop();
			if (codeNames.has(name) || JS_BUILTINS.has(name) || n8nKnows(name, false)) continue;
			missing.push(`${file}:${line}  function ${call}()`);
		}
	}
}
for (const m of missing) console.log(m);
console.log(`${missing.length} reference(s) to what does not exist`);
process.exitCode = missing.length > 0 ? 1 : 0;
