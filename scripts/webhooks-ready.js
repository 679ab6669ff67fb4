#!/usr/bin/env node
/**
 * Whether n8n has registered the production webhooks of published workflows. n8n 2.41 answers
 * /healthz/readiness and prints "Editor is now accessible" before it activates published workflows
 * (the publication service starts without being awaited): a webhook called then gets 404 "not
 * registered" (33 of 42 calls in one run). A registered webhook is told apart without starting an
 * execution and without a line in n8n's log: a CORS preflight (OPTIONS with an Origin) is answered
 * 204 with the path's registered methods in Access-Control-Allow-Methods ("OPTIONS, POST"; only
 * "OPTIONS" before registration). Asking with another method, as this check did, also starts no
 * execution, but n8n logs each such 404 as an error ('webhook "GET forward-events" is not
 * registered'), which `npm start` printed on every start.
 *
 *   node scripts/webhooks-ready.js <n8n url> <workflow.json>... [--pid PID]...
 * exits 0 once /healthz/readiness answers 200 and every webhook of the workflows is registered,
 * 1 when a watched process is gone first, 2 when a webhook is still not registered a minute after
 * n8n became ready (the reason on stderr).
 */
'use strict';
const fs = require('node:fs');

/** The production webhooks of a workflow: { path, methods } of each enabled Webhook node. */
function webhooksOf(workflow) {
	return (workflow.nodes ?? [])
		.filter((node) => node.type === 'n8n-nodes-base.webhook' && node.disabled !== true)
		.map((node) => {
			const p = node.parameters ?? {};
			const path = String(p.path || node.webhookId || '').replace(/^\/+/, '');
			// Webhook v2 takes several methods when "Allow Multiple HTTP Methods" is on; GET by default
			const raw = p.multipleMethods === true ? (p.httpMethod ?? ['GET', 'POST']) : (p.httpMethod ?? 'GET');
			return { path, methods: [].concat(raw).map((m) => String(m).toUpperCase()) };
		})
		.filter((hook) => hook.path !== '');
}

/**
 * Asks n8n for the methods registered on a webhook's path, as a browser's CORS preflight does: no
 * execution starts and n8n logs nothing. (No Access-Control-Request-Method: with it, n8n 2.41 also
 * looks the webhook up for that method, which throws outside its error handling when none is.)
 */
async function isRegistered(baseUrl, hook) {
	const response = await fetch(`${baseUrl}/webhook/${hook.path}`, { method: 'OPTIONS', headers: { origin: baseUrl }, signal: AbortSignal.timeout(5000) });
	await response.arrayBuffer();
	const allowed = (response.headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim().toUpperCase());
	return hook.methods.some((method) => allowed.includes(method));
}

async function isReady(baseUrl) {
	const response = await fetch(`${baseUrl}/healthz/readiness`, { signal: AbortSignal.timeout(5000) });
	await response.arrayBuffer();
	return response.status === 200;
}

/**
 * Resolves once n8n is ready and every webhook answers as registered. Rejects when `alive()` turns
 * false, or when a webhook is still not registered `registerMs` after n8n became ready (a workflow
 * unpublished in the editor, say): the error names the webhooks and has `timedOut` set.
 */
async function waitForWebhooks(baseUrl, hooks, { alive = () => true, intervalMs = 250, registerMs = 60_000 } = {}) {
	let readySince;
	let waiting = hooks;
	for (;;) {
		if (!alive()) throw new Error('n8n stopped before its webhooks were registered');
		try {
			if (await isReady(baseUrl)) {
				readySince ??= Date.now();
				const registered = await Promise.all(waiting.map((hook) => isRegistered(baseUrl, hook)));
				waiting = waiting.filter((_, n) => !registered[n]);
				if (waiting.length === 0) return;
			}
		} catch {
			// not listening yet, or busy starting: ask again
		}
		if (readySince !== undefined && Date.now() - readySince > registerMs) {
			throw Object.assign(new Error(`n8n is up, but these webhooks are not registered ${registerMs / 1000} s later (is the workflow published?): ${waiting.map((h) => `/webhook/${h.path}`).join(', ')}`), { timedOut: true });
		}
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}

module.exports = { webhooksOf, isRegistered, waitForWebhooks };

if (require.main === module) {
	const args = process.argv.slice(2);
	const pids = [];
	const files = [];
	for (let n = 1; n < args.length; n++) {
		if (args[n] === '--pid') pids.push(Number(args[++n]));
		else files.push(args[n]);
	}
	const alive = () => pids.every((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } });
	const hooks = files.flatMap((file) => webhooksOf(JSON.parse(fs.readFileSync(file, 'utf8'))));
	waitForWebhooks(args[0], hooks, { alive }).then(
		() => process.exit(0),
		(error) => {
			console.error(`[webhooks-ready] ${error.message}`);
			process.exit(error.timedOut ? 2 : 1);
		},
	);
}
