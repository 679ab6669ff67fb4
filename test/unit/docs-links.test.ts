/**
 * Every relative link and anchor in README.md and docs/*.md resolves: the file exists, and an
 * anchor names a heading of the page it points into, by GitHub's rules for heading ids. Every page
 * of docs/ is linked from the README. The Docs links n8n shows for the nodes (the codex's
 * primaryDocumentation) and the credentials (documentationUrl) go to pages of docs/ at the
 * package's repository (package.json `repository`) that exist, with the anchor they name.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResilientHttpOAuth2Api } from '../../credentials/ResilientHttpOAuth2Api.credentials';
import { ResilientHttpRedis } from '../../credentials/ResilientHttpRedis.credentials';
import { docFiles, REPO_ROOT } from '../support/doc-section';

/**
 * The id GitHub gives a heading: its text (links as their text, no emphasis or code marks) lowercased,
 * punctuation but - and _ dropped, each space a hyphen. (Underscore emphasis is not used in headings.)
 */
export function githubSlug(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link reads as its text
		.replace(/<[^>]+>/g, '') // inline HTML
		.replace(/[*`]/g, '') // emphasis and code marks
		.trim();
	return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Lines outside fenced code blocks; `text` with inline code blanked out (links there are only text). */
function proseLines(markdown: string): { line: number; raw: string; text: string }[] {
	const out: { line: number; raw: string; text: string }[] = [];
	let fence: string | undefined;
	markdown.split('\n').forEach((text, index) => {
		const marker = /^\s*(```+|~~~+)/.exec(text)?.[1];
		if (marker !== undefined) {
			if (fence === undefined) fence = marker[0];
			else if (marker[0] === fence) fence = undefined;
			return;
		}
		if (fence === undefined) out.push({ line: index + 1, raw: text, text: text.replace(/`+[^`]*`+/g, (code) => ' '.repeat(code.length)) });
	});
	return out;
}

/** The anchors a page offers: its headings' ids (a repeated one gets -1, -2, ...), and HTML ids. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const { raw, text } of proseLines(markdown)) {
		for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
		if (!heading) continue;
		const slug = githubSlug(heading[1]);
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	return anchors;
}

/** Relative link targets of a page (inline links and images), with their line. */
export function linksOf(markdown: string): { line: number; target: string }[] {
	const links: { line: number; target: string }[] = [];
	for (const { line, text } of proseLines(markdown)) {
		for (const match of text.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
			const target = match[1];
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
			links.push({ line, target });
		}
	}
	return links;
}

/** What is broken in the links of `files` (paths absolute), as "file:line: target: why". */
export function brokenLinks(files: string[], root: string): string[] {
	const broken: string[] = [];
	const anchorCache = new Map<string, Set<string>>();
	const anchors = (file: string) => {
		if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8')));
		return anchorCache.get(file)!;
	};
	for (const file of files) {
		for (const { line, target } of linksOf(readFileSync(file, 'utf8'))) {
			const where = `${path.relative(root, file)}:${line}: ${target}`;
			const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
			const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
			if (path.relative(root, resolved).startsWith('..')) {
				broken.push(`${where}: points outside the repository`);
				continue;
			}
			if (!existsSync(resolved)) {
				broken.push(`${where}: no such file`);
				continue;
			}
			if (anchor === undefined) continue;
			if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) {
				if (!/^L\d+(-L\d+)?$/.test(anchor)) broken.push(`${where}: an anchor into a file that is not a markdown page`);
				continue;
			}
			if (!anchors(resolved).has(anchor)) broken.push(`${where}: ${path.relative(root, resolved)} has no heading with id "${anchor}"`);
		}
	}
	return broken;
}

describe('GitHub heading ids', () => {
	it.each([
		['Stop reasons', 'stop-reasons'],
		['What is retried, and what is safe to retry', 'what-is-retried-and-what-is-safe-to-retry'],
		['Traffic control: one controller per API', 'traffic-control-one-controller-per-api'],
		["As an AI agent's tool", 'as-an-ai-agents-tool'],
		['Queue mode (Redis)', 'queue-mode-redis'],
		['From HTTP Request with *Retry On Fail*, by hand', 'from-http-request-with-retry-on-fail-by-hand'],
		['Retry-After and rate-limit headers', 'retry-after-and-rate-limit-headers'],
		['The `_retry` field', 'the-_retry-field'],
		['`npm test`', 'npm-test'],
		['Code + Wait + IF', 'code--wait--if'],
		['[Linked](x.md) heading', 'linked-heading'],
	])('%s -> #%s', (heading, slug) => {
		expect(githubSlug(heading)).toBe(slug);
	});

	it('numbers a repeated heading, ignores headings in code blocks, and takes HTML ids', () => {
		const page = ['# Title', '## Notes', '```', '## Notes', '```', '## Notes', '<a id="custom"></a>'].join('\n');
		expect([...anchorsOf(page)].sort()).toEqual(['custom', 'notes', 'notes-1', 'title']);
	});

	it('reads inline links and images, not code, not external links', () => {
		const page = ['[a](docs/a.md#x) ![img](pic.png "title") `[not](code.md)` [web](https://example.com)', '```', '[nor](fenced.md)', '```', '[here](#top)'].join('\n');
		expect(linksOf(page)).toEqual([
			{ line: 1, target: 'docs/a.md#x' },
			{ line: 1, target: 'pic.png' },
			{ line: 5, target: '#top' },
		]);
	});
});

describe('links in README.md and docs/*.md', () => {
	const files = docFiles();

	it('finds the pages and their links', () => {
		expect(files.length).toBeGreaterThan(10);
		const links = files.flatMap((file) => linksOf(readFileSync(file, 'utf8')));
		expect(links.length).toBeGreaterThan(50);
		expect(links.filter(({ target }) => target.includes('#')).length).toBeGreaterThan(20);
	});

	it('every relative link and anchor resolves', () => {
		expect(brokenLinks(files, REPO_ROOT)).toEqual([]);
	});

	it('reports a missing file, a missing anchor, a wrong relative path and a link out of the repository', () => {
		const root = mkdtempSync(path.join(tmpdir(), 'docs-links-'));
		try {
			mkdirSync(path.join(root, 'docs'));
			writeFileSync(path.join(root, 'docs/pic.png'), '');
			writeFileSync(path.join(root, 'README.md'), ['# Readme', '[ok](docs/a.md#stop-reasons) ![ok](docs/pic.png) [ok](#readme)', '[gone](docs/b.md)'].join('\n'));
			writeFileSync(
				path.join(root, 'docs/a.md'),
				['# A', '## Stop reasons', '[ok](../README.md#readme) [ok](#stop-reasons) [ok](pic.png)', '[bad](#stop-reason) [wrong](docs/pic.png) [out](../../x.md)'].join('\n'),
			);
			expect(brokenLinks(docFiles(root), root)).toEqual([
				'README.md:3: docs/b.md: no such file',
				'docs/a.md:4: #stop-reason: docs/a.md has no heading with id "stop-reason"',
				'docs/a.md:4: docs/pic.png: no such file',
				'docs/a.md:4: ../../x.md: points outside the repository',
			]);
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});

	it('every page of docs/ is linked from the README', () => {
		const linked = new Set(
			linksOf(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')).map(({ target }) => path.resolve(REPO_ROOT, target.split('#')[0])),
		);
		expect(files.slice(1).filter((page) => !linked.has(page)).map((page) => path.relative(REPO_ROOT, page))).toEqual([]);
	});
});

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { repository: { url: string }; homepage: string };
/** `git+https://github.com/o/r.git` -> `https://github.com/o/r`: the repository as a browser opens it. */
const REPOSITORY = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

function codexLinks(): Array<{ from: string; url: string }> {
	const nodesDir = path.join(REPO_ROOT, 'nodes');
	return readdirSync(nodesDir).flatMap((dir) => {
		const codex = path.join(nodesDir, dir, `${dir}.node.json`);
		if (!existsSync(codex)) return [];
		const { resources } = JSON.parse(readFileSync(codex, 'utf8')) as { resources?: { primaryDocumentation?: Array<{ url: string }> } };
		return (resources?.primaryDocumentation ?? []).map(({ url }) => ({ from: `nodes/${dir}/${dir}.node.json`, url }));
	});
}

const LINKS = [
	...codexLinks(),
	{ from: 'ResilientHttpOAuth2Api', url: new ResilientHttpOAuth2Api().documentationUrl },
	{ from: 'ResilientHttpRedis', url: new ResilientHttpRedis().documentationUrl },
];

/** What is wrong with a link, or undefined. */
function problemOf(url: string): string | undefined {
	const prefix = `${REPOSITORY}/blob/main/`;
	if (!url.startsWith(prefix)) return `does not start with ${prefix}`;
	const [file, anchor] = url.slice(prefix.length).split('#');
	if (!/^docs\/[\w-]+\.md$/.test(file)) return `${file} is not a page of docs/`;
	if (!existsSync(path.join(REPO_ROOT, file))) return `${file} does not exist`;
	if (anchor !== undefined && !anchorsOf(readFileSync(path.join(REPO_ROOT, file), 'utf8')).has(anchor)) return `${file} has no heading #${anchor}`;
	return undefined;
}

describe("the nodes' and credentials' Docs links", () => {
	it('the repository URL is a GitHub repository, and the homepage is its README', () => {
		expect(REPOSITORY).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
		expect(pkg.homepage).toBe(`${REPOSITORY}#readme`);
	});

	it('there is one for each node and credential', () => {
		expect(LINKS.filter((l) => l.from.endsWith('.node.json'))).toHaveLength(3);
		for (const link of LINKS) expect(link.url).toBeTruthy();
	});

	it.each(LINKS)('$from -> $url: a page of docs/ that exists at the repository URL', ({ url }) => {
		expect(problemOf(url)).toBeUndefined();
	});

	it('a link to a missing page, an unknown anchor or another site is caught', () => {
		expect(problemOf(`${REPOSITORY}/blob/main/docs/nowhere.md`)).toBe('docs/nowhere.md does not exist');
		expect(problemOf(`${REPOSITORY}/blob/main/docs/queue-mode.md#nowhere`)).toBe('docs/queue-mode.md has no heading #nowhere');
		expect(problemOf('https://www.npmjs.com/package/n8n-nodes-resilient-http#authentication')).toMatch(/^does not start with/);
	});
});
