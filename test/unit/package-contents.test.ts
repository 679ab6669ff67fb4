/**
 * What `npm pack` ships: the built package n8n loads and nothing else (no tests, no TypeScript
 * sources, no local n8n data, no workflows or docs that n8n never reads). It reads the list npm
 * itself would pack (`npm pack --dry-run`), so a change to package.json's "files", a stray
 * .npmignore or a file the build should not have written shows here, before a release ships it.
 * It needs the build (`npm test` builds before the unit tests; alone: `npm run build` first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expectDocSection, markdownTable, REPO_ROOT } from '../support/doc-section';

interface PackedFile {
	path: string;
	size: number;
}
interface PackReport {
	name: string;
	version: string;
	filename: string;
	size: number;
	unpackedSize: number;
	files: PackedFile[];
}

/** What may be in the tarball, each with why; anything else fails the test. */
const ALLOWED: { glob: string; pattern: RegExp; what: string }[] = [
	{ glob: 'package.json', pattern: /^package\.json$/, what: 'the manifest: n8n reads its "n8n" section to find the nodes and credentials' },
	{ glob: 'README.md', pattern: /^README\.md$/, what: 'the npm page' },
	{ glob: 'LICENSE', pattern: /^LICENSE$/, what: 'the MIT license' },
	{ glob: 'index.js', pattern: /^index\.js$/, what: "the package's main entry (`require('n8n-nodes-resilient-http')`)" },
	{ glob: 'bin/*.js', pattern: /^bin\/[\w-]+\.js$/, what: 'the `migrate` command (`npx n8n-nodes-resilient-http migrate`)' },
	{ glob: 'dist/{nodes,credentials,cli}/**/*.js', pattern: /^dist\/(nodes|credentials|cli)\/.+\.js$/, what: 'the compiled nodes, credentials and command' },
	{ glob: 'dist/{nodes,credentials,cli}/**/*.js.map', pattern: /^dist\/(nodes|credentials|cli)\/.+\.js\.map$/, what: "source maps (line numbers only: they embed no sources)" },
	{ glob: 'dist/nodes/*/*.node.json', pattern: /^dist\/nodes\/[A-Za-z]+\/[A-Za-z]+\.node\.json$/, what: "the nodes' codex (category, aliases, docs links)" },
	{ glob: 'dist/{nodes,credentials}/**/*.svg', pattern: /^dist\/(nodes|credentials)\/.+\.svg$/, what: 'icons, light and dark' },
];

/** Never shipped, whatever the patterns above let through: the reason a file must not go out. */
const FORBIDDEN: { glob: string; pattern: RegExp; why: string }[] = [
	{ glob: '**/test/**', pattern: /(^|\/)test\//, why: 'tests' },
	{ glob: '**/*.ts', pattern: /\.ts$/, why: 'TypeScript sources' },
	{ glob: '**/.n8n-local/**, **/*.sqlite', pattern: /(^|\/)\.n8n-local\/|\.sqlite$/, why: 'the local n8n of `npm start` (its database holds credentials)' },
	{ glob: '**/.env*, **/*.tgz, **/node_modules/**', pattern: /(^|\/)\.env|\.tgz$|(^|\/)node_modules\//, why: 'local settings, tarballs, dependencies' },
];

let report: PackReport;
beforeAll(() => {
	if (!existsSync(path.join(REPO_ROOT, 'dist/nodes'))) throw new Error('dist/ is missing: run `npm run build` first (npm test builds before the unit tests)');
	// --ignore-scripts: the list, not a build; npm prints the JSON report on stdout
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	report = (JSON.parse(out) as PackReport[])[0];
});

const packed = () => new Set(report.files.map((file) => file.path));

test('every packed file is one the package needs, and none is a test, a source or local data', () => {
	const unexpected = report.files.map((file) => file.path).filter((file) => !ALLOWED.some(({ pattern }) => pattern.test(file)));
	expect(unexpected).toEqual([]);
	const forbidden = report.files.flatMap(({ path: file }) => FORBIDDEN.filter(({ pattern }) => pattern.test(file)).map(({ why }) => `${file}: ${why}`));
	expect(forbidden).toEqual([]);
});

test('every file n8n and npm load from the package is in it', () => {
	const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
		main: string;
		bin: Record<string, string>;
		n8n: { nodes: string[]; credentials: string[] };
	};
	const loaded = [manifest.main, ...Object.values(manifest.bin), ...manifest.n8n.nodes, ...manifest.n8n.credentials];
	// what index.js and the bin script require
	for (const entry of [manifest.main, ...Object.values(manifest.bin)]) {
		const source = readFileSync(path.join(REPO_ROOT, entry), 'utf8');
		for (const [, required] of source.matchAll(/require\('(\.{1,2}\/[^']+)'\)/g)) loaded.push(path.posix.join(path.posix.dirname(entry), required));
	}
	expect(loaded.filter((file) => !packed().has(path.posix.normalize(file)))).toEqual([]);
});

test('every node ships its codex and both its icons; the source maps embed no sources', () => {
	const nodeFiles = [...packed()].filter((file) => file.endsWith('.node.js'));
	expect(nodeFiles.length).toBeGreaterThanOrEqual(3);
	for (const node of nodeFiles) expect(packed().has(node.replace(/\.js$/, '.json'))).toBe(true);
	const icons = [...packed()].filter((file) => file.endsWith('.svg'));
	expect(icons.filter((icon) => !icon.endsWith('.dark.svg')).length).toBe(icons.filter((icon) => icon.endsWith('.dark.svg')).length);
	const mapsWithSources = [...packed()]
		.filter((file) => file.endsWith('.js.map'))
		.filter((file) => 'sourcesContent' in (JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as object));
	expect(mapsWithSources).toEqual([]);
});

/** A bound the docs state (docs/releasing.md): a bundled dependency or a stray data file breaks it. */
const MAX_UNPACKED_BYTES = 2 * 1024 * 1024;

test(`the tarball unpacks to less than ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB`, () => {
	expect(report.unpackedSize).toBeLessThan(MAX_UNPACKED_BYTES);
});

test('docs/releasing.md: what the tarball may hold (generated from this test)', () => {
	expectDocSection(
		'package-contents',
		[
			`Anything else fails \`test/unit/package-contents.test.ts\`, as does a tarball of ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB or more unpacked:`,
			'',
			markdownTable(['Path', 'What it is'], ALLOWED.map(({ glob, what }) => [`\`${glob}\``, what])),
			'',
			'Never, whatever the patterns let through:',
			'',
			markdownTable(['Path', 'Why not'], FORBIDDEN.map(({ glob, why }) => [`\`${glob}\``, why])),
		].join('\n'),
	);
});
