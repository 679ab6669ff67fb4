// The n8n editor in a real browser: Debian's Chromium driven by playwright-core, both installed
// outside the repo by scripts/browser-tools.sh (which test-all.sh and .ci/run call). Without them
// a browser test is skipped with the reason, unless RH_REQUIRE_BROWSER=1 (CI), where it fails.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OWNER, getExecution, listExecutions, ownerEnv, prepareUserFolder, restClient, startN8n, stopN8n, waitFor } from './harness.mjs';

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserUnavailable() {
	const chromium = process.env.RH_CHROMIUM;
	const module = process.env.RH_PLAYWRIGHT_CORE;
	if (!chromium || !fs.existsSync(chromium)) return 'no Chromium (RH_CHROMIUM): run scripts/browser-tools.sh ensure, or apt-get install chromium';
	if (!module || !fs.existsSync(path.join(module, 'package.json'))) return 'no playwright-core (RH_PLAYWRIGHT_CORE): run scripts/browser-tools.sh ensure';
	return undefined;
}

/** Skips the test (node:test context) when the browser is missing, or fails it under RH_REQUIRE_BROWSER=1. */
export function requireBrowser(t) {
	const why = browserUnavailable();
	if (!why) return true;
	if (process.env.RH_REQUIRE_BROWSER === '1') throw new Error(`browser test cannot run: ${why}`);
	t.skip(why);
	return false;
}

/** Chromium with a fresh profile; the flags keep it off this machine's closed network. */
export async function launchBrowser() {
	const { chromium } = createRequire(path.join(process.env.RH_PLAYWRIGHT_CORE, 'package.json'))('playwright-core');
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-e2e-chromium-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.RH_CHROMIUM,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
		viewport: { width: 1600, height: 1000 },
		locale: 'en-US',
	});
	const page = context.pages()[0] ?? (await context.newPage());
	const errors = [];
	page.on('pageerror', (error) => errors.push(error.message));
	return {
		page,
		errors,
		close: async () => {
			await context.close();
			fs.rmSync(profile, { recursive: true, force: true });
		},
	};
}

/**
 * What the editor tests of a file share: a real n8n that loads the packed tarball, with the owner
 * signed in over REST (`client`), and Chromium launched and signed in once, on first use (`page()`:
 * a file whose tests all skip without a browser never starts one). `errors()`: the page's uncaught
 * errors so far. `close()` stops both (and every n8n the file started).
 */
export async function startEditorSession() {
	const userFolder = await prepareUserFolder({ tarball: true });
	const n8n = await startN8n(userFolder, { env: ownerEnv() });
	const client = await restClient(n8n);
	let browser;
	return {
		n8n,
		client,
		async page() {
			if (!browser) {
				browser = await launchBrowser();
				await signIn(browser.page, n8n.url);
			}
			return browser.page;
		},
		errors: () => browser?.errors ?? [],
		async close() {
			await browser?.close();
			await stopN8n();
		},
	};
}

/** Signs in on the editor's sign-in page with the owner that scripts/start.sh sets up. */
export async function signIn(page, baseUrl, { email = OWNER.email, password = OWNER.password } = {}) {
	await page.goto(`${baseUrl}/signin`, { waitUntil: 'domcontentloaded' });
	const emailBox = page.locator('input[name="emailOrLdapLoginId"], input[name="email"]').first();
	await emailBox.waitFor({ timeout: 60_000 });
	await emailBox.fill(email);
	await page.locator('input[name="password"]').fill(password);
	await page.locator('[data-test-id="form-submit-button"], button[type="submit"]').first().click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
}

/** Opens a workflow on the canvas and waits until its nodes are drawn. */
export async function openWorkflow(page, baseUrl, id) {
	await page.goto(`${baseUrl}/workflow/${id}`, { waitUntil: 'domcontentloaded' });
	await page.locator('.vue-flow__node').first().waitFor({ timeout: 60_000 });
	await page.waitForTimeout(500);
	await closePopups(page);
}

/** Modals, tours and toasts that the editor may show on a fresh instance. */
export async function closePopups(page) {
	for (const selector of ['.el-dialog__headerbtn', '.el-message-box__headerbtn', '.el-notification__closeBtn']) {
		for (const button of await page.locator(selector).all()) {
			if (await button.isVisible().catch(() => false)) await button.click().catch(() => {});
		}
	}
}

/** Opens a node's panel (NDV) by its name on the canvas. */
export async function openNode(page, name) {
	await page.locator('.vue-flow__node', { hasText: name }).first().dblclick();
	await page.locator('[data-test-id="ndv"] [data-test-id="node-parameters"]').waitFor({ timeout: 30_000 });
}

/** Picks an option of an n8n select (options parameter or credential picker) by its visible text. */
export async function pickOption(page, trigger, optionText) {
	await trigger.click();
	const option = page.locator('.el-select-dropdown__item:visible, [role="option"]:visible').filter({ hasText: optionText }).first();
	await option.waitFor({ timeout: 15_000 });
	await option.click();
}

/**
 * Closes the panel, saves the workflow (Ctrl+S) and waits until the stored node named `nodeName`
 * passes `check` (the editor saves asynchronously). Resolves that node.
 */
export async function saveAndWaitForNode(page, client, workflowId, nodeName, check, what) {
	await page.keyboard.press('Escape');
	await page.keyboard.press('Control+s');
	return await waitFor(
		async () => {
			const node = (await client.get(`/rest/workflows/${workflowId}`)).nodes.find((n) => n.name === nodeName);
			return node && check(node) ? node : undefined;
		},
		{ timeoutMs: 15_000, what },
	);
}

/**
 * Clicks "Execute workflow" on the open workflow's canvas and returns the execution it started,
 * once finished (from n8n's REST API: `client` is harness.restClient's).
 */
export async function executeInEditor(page, client, workflowId, { timeoutMs = 60_000 } = {}) {
	const before = new Set((await listExecutions(client, workflowId)).map((e) => e.id));
	await page.locator('[data-test-id="execute-workflow-button"]').first().click();
	const summary = await waitFor(
		async () => (await listExecutions(client, workflowId)).find((e) => !before.has(e.id) && ['success', 'error', 'crashed'].includes(e.status)),
		{ timeoutMs, what: `an execution of ${workflowId} started from the editor` },
	);
	return await getExecution(client, summary.id);
}
