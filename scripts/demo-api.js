#!/usr/bin/env node
/**
 * The demo API that `npm start` runs beside n8n: the flaky upstream the tests use
 * (test/support/flaky-upstream.js), on the port the example workflows point at, in "cycle" mode so
 * that every run of an example sees the same failures again (a key starts its script anew after it
 * answered 200). Each request is logged on one line.
 *
 *   node scripts/demo-api.js            listens on http://127.0.0.1:${RH_DEMO_PORT:-8787}
 *
 * Stops on SIGINT / SIGTERM. GET / lists the routes.
 */
'use strict';
const path = require('node:path');
const { startFlakyServer } = require(path.join(__dirname, '..', 'test', 'support', 'flaky-upstream.js'));

const ROUTES = [
	['/fail/:n/:key', '503 for the first n requests of a run, then 200 (examples 01, 04)'],
	['/status/:code/:n/:key', 'status code for the first n requests, then 200 (example 04: 404)'],
	['/429/:seconds/:key', '429 with Retry-After: seconds, then 200 (examples 02, 05)'],
	['/429date/:seconds/:key', 'the same, Retry-After as an HTTP-date'],
	['/drop-after-processing/:key', 'a payment API: records the charge, drops the first connection, deduplicates by Idempotency-Key (example 03)'],
	['/events/:id', 'a webhook receiver: ok-* 503 then 200, later-* 503 three times then 200, bad-* 400, down-* always 503 (examples 06, 07)'],
	['/jobs/:seconds/:key', 'a job API: POST starts a job of seconds, 202 + Location; GET answers 202 running, then 200 done (example 09)'],
	['/down', 'always 503'],
	['/hang', 'never answers'],
	['/echo', '200 with the request it got (method, path, query, headers, body)'],
];

function clock() {
	return new Date().toISOString().slice(11, 23);
}

async function main() {
	const port = Number(process.env.RH_DEMO_PORT || 8787);
	if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`RH_DEMO_PORT must be a port number, got ${JSON.stringify(process.env.RH_DEMO_PORT)}`);
	const index = (_req, res, { json, entry }) => json(res, (entry.status = 200), { demo: 'n8n-nodes-resilient-http demo API', routes: Object.fromEntries(ROUTES) });
	const server = await startFlakyServer(
		{ '': index },
		{
			port,
			cycle: true,
			onRequest: (entry) => console.log(`[demo-api] ${clock()} ${entry.method} ${entry.url} -> ${entry.status} (request ${entry.count} of this run)`),
		},
	);
	console.log(`[demo-api] listening on ${server.url} (GET ${server.url}/ lists the routes)`);
	const stop = async () => {
		await server.close();
		process.exit(0);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error) => {
	console.error(`[demo-api] ${error.code === 'EADDRINUSE' ? `port ${process.env.RH_DEMO_PORT || 8787} is in use: set RH_DEMO_PORT to another one` : error.message}`);
	process.exit(1);
});
