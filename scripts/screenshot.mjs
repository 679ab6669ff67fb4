#!/usr/bin/env node
// Screenshots of the example workflows open in the n8n editor (docs/screenshot-*.png).
//
// Needs:
//   - n8n running with this package loaded: `npm start` in another terminal (or in the
//     background); it listens on http://127.0.0.1:5678 unless N8N_PORT says otherwise.
//   - Chromium from Debian's packages:  apt-get update && apt-get install -y chromium
//   - playwright-core, installed OUTSIDE the repo (it is not a dependency of this package, and
//     no browser is downloaded: never run `npx playwright install`):
//         npm install --prefix /tmp/shot playwright-core
//     The script finds it through NODE_PATH (e.g. NODE_PATH=/tmp/shot/node_modules), or else
//     in PLAYWRIGHT_CORE_PREFIX (default /tmp/shot).
//
// Run (from the repo root):
//   node scripts/screenshot.mjs
//       -> docs/screenshot-classic-loop.png (workflow rhEx4ClassicLoop),
//          docs/screenshot-webhook-sender.png (rhEx6WebhookSend) and
//          docs/screenshot-replay-dead-letters.png (rhEx7ReplayDeadLet)
//   node scripts/screenshot.mjs rhEx2RateLimited docs/screenshot-rate-limited.png
//       -> any workflow id / output file pairs
//   node scripts/screenshot.mjs "datatable:Dead letters: webhook sender" docs/screenshot-dead-letter-table.png
//       -> a Data Table, by its exact name, open in n8n's table view (it must have rows)
//
// Environment: N8N_URL (default http://127.0.0.1:${N8N_PORT:-5678}), RH_OWNER_EMAIL /
// RH_OWNER_PASSWORD (the login that scripts/start.sh creates), CHROMIUM (/usr/bin/chromium),
// SHOT_WIDTH / SHOT_HEIGHT (1600 x 900), SHOT_SCALE (device scale factor, 1).
//
// What it does: signs in through the sign-in page, opens /workflow/<id>, waits until every
// canvas node (sticky notes included) has rendered and every node icon has loaded, fails when
// a node shows as unknown ("?", "install this node") or an error toast is up, closes popups,
// zooms to fit (the fit-view button, or the '1' key) and saves the PNG.
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function loadPlaywright() {
	const require = createRequire(import.meta.url); // honours NODE_PATH
	try {
		return require('playwright-core');
	} catch {
		const prefix = process.env.PLAYWRIGHT_CORE_PREFIX || '/tmp/shot';
		try {
			return createRequire(join(prefix, 'package.json'))('playwright-core');
		} catch {
			console.error(
				'playwright-core not found. Install it outside the repo:\n' +
					'  npm install --prefix /tmp/shot playwright-core\n' +
					'and run with NODE_PATH=/tmp/shot/node_modules (or PLAYWRIGHT_CORE_PREFIX=/tmp/shot).',
			);
			process.exit(2);
		}
	}
}

const defaults = [
	['rhEx4ClassicLoop', 'docs/screenshot-classic-loop.png'],
	['rhEx6WebhookSend', 'docs/screenshot-webhook-sender.png'],
	['rhEx7ReplayDeadLet', 'docs/screenshot-replay-dead-letters.png'],
];
const args = process.argv.slice(2);
if (args.length % 2 !== 0) {
	console.error('usage: node scripts/screenshot.mjs [<workflow id> <output.png>]...');
	process.exit(2);
}
const jobs = args.length ? [] : defaults;
for (let i = 0; i < args.length; i += 2) jobs.push([args[i], args[i + 1]]);

const baseUrl = (process.env.N8N_URL || `http://127.0.0.1:${process.env.N8N_PORT || 5678}`).replace(
	/\/$/,
	'',
);
const email = process.env.RH_OWNER_EMAIL || 'admin@example.com';
const password = process.env.RH_OWNER_PASSWORD || 'ResilientHttp-local1';
const width = Number(process.env.SHOT_WIDTH || 1600);
const height = Number(process.env.SHOT_HEIGHT || 900);
const scale = Number(process.env.SHOT_SCALE || 1);

const { chromium } = loadPlaywright();
const profile = mkdtempSync(join(tmpdir(), 'rh-shot-profile-'));
// A fresh profile each run (launchPersistentContext passes it as --user-data-dir).
const context = await chromium.launchPersistentContext(profile, {
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	headless: true,
	args: [
		'--headless',
		'--no-sandbox',
		'--disable-gpu',
		'--disable-quic',
		'--no-first-run',
		'--disable-background-networking',
		'--disable-component-update',
		'--disable-sync',
	],
	viewport: { width, height },
	deviceScaleFactor: scale,
	colorScheme: 'light',
	locale: 'en-US',
});

let failed = false;
try {
	const page = context.pages()[0] || (await context.newPage());
	page.on('pageerror', (err) => console.warn(`[page error] ${err.message}`));

	await signIn(page);
	for (const [id, out] of jobs) {
		try {
			if (id.startsWith('datatable:')) await shootTable(page, id.slice('datatable:'.length), resolve(repo, out));
			else await shoot(page, id, resolve(repo, out));
		} catch (err) {
			failed = true;
			console.error(`[screenshot] ${id}: ${err.message}`);
			const debug = resolve(repo, out).replace(/\.png$/, '') + '.failed.png';
			await page.screenshot({ path: debug }).catch(() => {});
			console.error(`[screenshot] what the page showed: ${debug}`);
		}
	}
} finally {
	await context.close();
	rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

async function signIn(page) {
	await page.goto(`${baseUrl}/signin`, { waitUntil: 'domcontentloaded' });
	const emailBox = page.locator('input[name="emailOrLdapLoginId"], input[name="email"]').first();
	await emailBox.waitFor({ timeout: 30_000 });
	await emailBox.fill(email);
	await page.locator('input[name="password"]').fill(password);
	await page.locator('[data-test-id="form-submit-button"], button[type="submit"]').first().click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
	console.log(`[screenshot] signed in as ${email}`);
}

/** GET of n8n's REST API with the page's session: the JSON `data`. */
async function restGet(page, path, what) {
	// The session cookie is bound to the editor's browser id (localStorage), sent as a header.
	const browserId = await page.evaluate(() => localStorage.getItem('n8n-browserId'));
	const res = await page.request.get(`${baseUrl}${path}`, {
		headers: browserId ? { 'browser-id': browserId } : {},
	});
	if (!res.ok()) throw new Error(`GET ${path}: HTTP ${res.status()} (${what})`);
	return (await res.json()).data;
}

/** A Data Table in n8n's table view, once every row has rendered. */
async function shootTable(page, name, out) {
	const table = (await restGet(page, '/rest/data-tables-global', 'data tables')).data.find((t) => t.name === name);
	if (!table) throw new Error(`no data table named "${name}" (has its workflow run yet?)`);
	const rows = (await restGet(page, `/rest/projects/${table.projectId}/data-tables/${table.id}/rows?take=100`, 'rows')).count;
	if (!rows) throw new Error(`the data table "${name}" has no rows to show`);
	await page.goto(`${baseUrl}/projects/${table.projectId}/datatables/${table.id}`, { waitUntil: 'domcontentloaded' });
	// the rows are an AG Grid: one .ag-row per row (a few more for pinned rows)
	await page.waitForFunction((n) => document.querySelectorAll('.ag-center-cols-container .ag-row').length >= n, Math.min(rows, 20), { timeout: 60_000 });
	await page.waitForLoadState('networkidle').catch(() => {});
	await page.waitForTimeout(1000);
	await dismissPopups(page);
	await page.mouse.move(width - 2, height / 2);
	await page.waitForTimeout(300);
	mkdirSync(dirname(out), { recursive: true });
	await page.screenshot({ path: out });
	console.log(`[screenshot] data table "${name}" (${rows} rows) -> ${out}`);
}

async function shoot(page, id, out) {
	const workflow = await restGet(page, `/rest/workflows/${id}`, 'imported?');
	const expected = workflow.nodes.length;

	await page.goto(`${baseUrl}/workflow/${id}`, { waitUntil: 'domcontentloaded' });
	// Every node (sticky notes included) is a .vue-flow__node on the canvas.
	await page.waitForFunction(
		(n) => document.querySelectorAll('.vue-flow__node').length >= n,
		expected,
		{ timeout: 60_000 },
	);
	// Every icon loaded (the community nodes' SVGs come from /icons/...).
	await page.waitForFunction(
		() =>
			[...document.querySelectorAll('.vue-flow__node img')].every(
				(img) => img.complete && img.naturalWidth > 0,
			),
		null,
		{ timeout: 30_000 },
	);
	await page.waitForLoadState('networkidle').catch(() => {});
	await page.waitForTimeout(1000);
	await dismissPopups(page);

	// Zoom to fit: the canvas button, else the '1' shortcut on the canvas.
	const fit = page.locator('[data-test-id="zoom-to-fit"]');
	if (await fit.count()) {
		await fit.first().click();
	} else {
		await page.locator('.vue-flow__pane').first().click({ position: { x: 5, y: 5 } });
		await page.keyboard.press('1');
	}
	await page.waitForTimeout(800); // the fit-view animation
	await page.evaluate(() => document.activeElement?.blur?.()); // no focus ring on the button
	await page.mouse.move(width - 2, height / 2); // no hover outline or tooltip in the picture
	await page.waitForTimeout(300);
	await dismissPopups(page);

	const problems = await page.evaluate(() => {
		const out = [];
		for (const node of document.querySelectorAll('.vue-flow__node')) {
			const text = node.innerText || '';
			if (/install this node|node is not currently installed|\?\s*$/i.test(text))
				out.push(`unknown node: ${text.split('\n')[0]}`);
		}
		for (const t of document.querySelectorAll('.el-notification, [role="alert"]')) {
			const text = (t.innerText || '').trim();
			if (text) out.push(`toast: ${text.replace(/\s+/g, ' ')}`);
		}
		return out;
	});
	if (problems.length) throw new Error(problems.join('; '));

	mkdirSync(dirname(out), { recursive: true });
	await page.screenshot({ path: out });
	console.log(`[screenshot] ${id} (${expected} nodes) -> ${out}`);
}

async function dismissPopups(page) {
	// Modals, "what's new", tours, banners: close buttons first, then Escape.
	const closers = [
		'.el-dialog__headerbtn',
		'.el-message-box__headerbtn',
		'.el-notification__closeBtn',
		'[data-test-id="banner-close-button"], [data-test-id="banners-close"]',
		'[data-test-id="close-button"]',
	];
	for (const sel of closers) {
		for (const btn of await page.locator(sel).all()) {
			if (await btn.isVisible().catch(() => false)) await btn.click().catch(() => {});
		}
	}
	await page.keyboard.press('Escape');
	await page.waitForTimeout(300);
}
