// The credential types HTTP Request offers as "Predefined Credential Type", read from the packages
// n8n ships, and written into nodes/ResilientHttpRequest/auth/generated/predefined-credentials.ts.
//
//   node scripts/credential-types.js           rewrites the generated file
//   node scripts/credential-types.js --check   exits 1 when the file differs from the packages
//   node scripts/credential-types.js --json DIR...   prints what the packages in DIR... offer (tests)
//
// n8n-nodes-base comes from the repo's node_modules (a pinned devDependency); the LangChain nodes'
// package (@n8n/n8n-nodes-langchain, which n8n also ships and whose types HTTP Request offers too)
// from the n8n install of scripts/install-n8n.sh, which pins the same n8n version.
//
// The rule is the editor's own for HTTP Request's "Credential Type" list (n8n 2.41.1,
// CredentialsSelect with credentialTypes ['extends:oAuth2Api', 'extends:oAuth1Api',
// 'has:authenticate']): a type qualifies when it has an `authenticate` and is not a generic kind
// (`genericAuth`), or extends oAuth2Api or oAuth1Api, or extends a type that qualifies; types
// marked `hidden`, and types restricted to their own nodes (`restrictToSupportedNodes`), are not
// offered (n8n-core refuses the latter to every other node anyway).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..');
const OUTPUT = path.join(REPO, 'nodes/ResilientHttpRequest/auth/generated/predefined-credentials.ts');
const BASE_PACKAGE = 'n8n-nodes-base';
const LANGCHAIN_PACKAGE = '@n8n/n8n-nodes-langchain';

function isClass(value) {
	return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** Every credential type a package lists in its package.json ("n8n.credentials"), instantiated. */
function loadCredentialTypes(packageDir) {
	const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
	const types = [];
	for (const file of manifest.n8n.credentials) {
		const exported = require(path.resolve(packageDir, file));
		for (const value of Object.values(exported)) {
			if (!isClass(value)) continue;
			const type = new value();
			if (typeof type.name === 'string' && Array.isArray(type.properties)) types.push(type);
		}
	}
	return { name: manifest.name, version: manifest.version, types };
}

/** The packages n8n ships, as installed here: { name, version, dir }. */
function shippedPackages() {
	const baseDir = path.join(REPO, 'node_modules', BASE_PACKAGE);
	const n8nHome = execFileSync('bash', ['-c', 'source scripts/n8n-env.sh && printf %s "$N8N_HOME"'], { cwd: REPO, encoding: 'utf8' });
	const langchainDir = path.join(n8nHome, 'node_modules', LANGCHAIN_PACKAGE);
	if (!fs.existsSync(path.join(langchainDir, 'package.json'))) {
		throw new Error(`${LANGCHAIN_PACKAGE} not found in ${n8nHome}: run "npm run install:n8n" first (it installs the pinned n8n, which ships it)`);
	}
	return [baseDir, langchainDir];
}

/** The fields of a type, its ancestors' included (as n8n's getCredentialsProperties merges them). */
function allProperties(byName, type, seen = new Set()) {
	if (seen.has(type.name)) return [];
	seen.add(type.name);
	const inherited = (type.extends ?? []).flatMap((parent) => (byName.has(parent) ? allProperties(byName, byName.get(parent), seen) : []));
	return [...inherited, ...type.properties];
}

function qualifies(byName, type, seen = new Set()) {
	if (seen.has(type.name)) return false;
	seen.add(type.name);
	if (type.authenticate !== undefined && type.genericAuth !== true) return true;
	const parents = type.extends ?? [];
	if (parents.some((parent) => parent === 'oAuth2Api' || parent === 'oAuth1Api')) return true;
	return parents.some((parent) => byName.has(parent) && qualifies(byName, byName.get(parent), seen));
}

function ancestors(byName, name) {
	const type = byName.get(name);
	return (type?.extends ?? []).flatMap((parent) => [parent, ...ancestors(byName, parent)]);
}

/**
 * The fields whose values a request may carry, for redaction: password fields, fields n8n fills
 * in during the run (expirable: tokens from preAuthentication), and every field `authenticate`
 * reads. URLs, regions and other settings stay readable in error messages.
 */
function secretFields(type, properties) {
	const names = new Set(properties.map((p) => p.name));
	const found = new Set();
	for (const p of properties) {
		if (p.typeOptions?.password === true || p.typeOptions?.expirable === true) found.add(p.name);
	}
	const source = typeof type.authenticate === 'function' ? Function.prototype.toString.call(type.authenticate) : JSON.stringify(type.authenticate ?? {});
	for (const match of source.matchAll(/credentials\??\.([A-Za-z_$][\w$]*)|credentials\[['"]([^'"]+)['"]\]/g)) {
		const field = match[1] ?? match[2];
		if (names.has(field)) found.add(field);
	}
	return [...found].sort();
}

/** `authenticate` adds fields to the request body (n8n's helper then needs the body as an object, not as finished text). */
function writesBody(type) {
	if (typeof type.authenticate === 'function') return /\.body\b/.test(Function.prototype.toString.call(type.authenticate));
	return type.authenticate?.properties?.body !== undefined;
}

/** The extra OAuth2 options HTTP Request passes for a type (n8n-nodes-base's getOAuth2AdditionalParameters). */
function oauth2OptionsFor(baseDir) {
	const { getOAuth2AdditionalParameters } = require(path.join(baseDir, 'dist/nodes/HttpRequest/GenericFunctions.js'));
	return (name) => getOAuth2AdditionalParameters(name);
}

/** The predefined credential types HTTP Request offers, sorted by name, with what the node needs to apply and redact them. */
function computePredefinedTypes(packageDirs) {
	const packages = packageDirs.map(loadCredentialTypes);
	const byName = new Map();
	const sourceOf = new Map();
	for (const pkg of packages) {
		for (const type of pkg.types) {
			byName.set(type.name, type);
			sourceOf.set(type.name, pkg.name);
		}
	}
	const baseDir = packageDirs.find((dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === BASE_PACKAGE);
	const oauth2Options = oauth2OptionsFor(baseDir);
	const entries = [];
	for (const type of byName.values()) {
		if (type.hidden === true || type.restrictToSupportedNodes === true || !qualifies(byName, type)) continue;
		const parents = ancestors(byName, type.name);
		const kind = parents.includes('oAuth2Api') ? 'oAuth2' : parents.includes('oAuth1Api') ? 'oAuth1' : 'authenticate';
		const entry = {
			name: type.name,
			displayName: type.displayName,
			package: sourceOf.get(type.name),
			kind,
			secretFields: secretFields(type, allProperties(byName, type)),
		};
		if (typeof type.preAuthentication === 'function') entry.preAuthentication = true;
		if (writesBody(type)) entry.writesBody = true;
		const options = kind === 'oAuth2' ? oauth2Options(type.name) : undefined;
		if (options) entry.oauth2 = options;
		entries.push(entry);
	}
	entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	return { packages: packages.map(({ name, version }) => ({ name, version })), entries };
}

function render({ packages, entries }) {
	const lines = entries.map((entry) => `\t${JSON.stringify(entry)},`);
	return [
		'// GENERATED by scripts/credential-types.js from ' + packages.map((p) => `${p.name} ${p.version}`).join(' and ') + ': do not edit.',
		'// Run `node scripts/credential-types.js` after changing the pinned n8n version; test/unit/credential-types-sync.test.ts',
		'// and test/e2e/drop-in.e2e.mjs fail while this list differs from what that n8n offers.',
		"import type { PredefinedCredentialType } from '../predefined-credential-type';",
		'',
		`export const GENERATED_FROM = ${JSON.stringify(packages)} as const;`,
		'',
		'export const PREDEFINED_CREDENTIAL_TYPES: readonly PredefinedCredentialType[] = [',
		...lines,
		'];',
		'',
	].join('\n');
}

module.exports = { computePredefinedTypes, loadCredentialTypes, qualifies, render, shippedPackages, OUTPUT, BASE_PACKAGE, LANGCHAIN_PACKAGE };

if (require.main === module && process.argv[2] === '--json') {
	process.stdout.write(JSON.stringify(computePredefinedTypes(process.argv.slice(3).map((dir) => path.resolve(dir)))));
} else if (require.main === module) {
	const text = render(computePredefinedTypes(shippedPackages()));
	if (process.argv.includes('--check')) {
		const current = fs.existsSync(OUTPUT) ? fs.readFileSync(OUTPUT, 'utf8') : '';
		if (current !== text) {
			console.error(`${path.relative(REPO, OUTPUT)} differs from the installed packages: run node scripts/credential-types.js`);
			process.exit(1);
		}
		console.log(`${path.relative(REPO, OUTPUT)} is up to date`);
	} else {
		fs.mkdirSync(path.dirname(OUTPUT), { recursive: true });
		fs.writeFileSync(OUTPUT, text);
		console.log(`wrote ${path.relative(REPO, OUTPUT)}: ${text.split('\n').filter((l) => l.startsWith('\t{')).length} credential types`);
	}
}
