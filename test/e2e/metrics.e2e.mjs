// Example 10 under `n8n start`, scraped by a real Prometheus while a fleet-like scenario runs: six
// executions at once (webhook calls) send 24 items through Resilient HTTP Request to a local server
// that answers each path's first requests with 429 (Retry-After) or 503 / 500, and Prometheus
// (Debian's package) scrapes example 10's webhook every 2 s. The text the webhook serves passes
// `promtool check metrics`; what Prometheus stored equals what the server saw: answers by status,
// first requests, resends by reason. RH_REQUIRE_PROMTOOL=1 (CI) fails the test when Prometheus'
// tools are missing; without it the test is skipped with the reason.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TMP_BASE, callWebhook, freePort, importWorkflow, loadExample, ownerEnv, prepareUserFolder, publishOnServer, restClient, startFlakyServer, startN8n, stopN8n, uniqueKey, waitFor } from './harness.mjs';

const PROMTOOL = process.env.RH_PROMTOOL || 'promtool';
const PROMETHEUS = process.env.RH_PROMETHEUS || 'prometheus';
const runs = (command) => spawnSync(command, ['--version'], { encoding: 'utf8' }).status === 0;
const missing = [PROMTOOL, PROMETHEUS].filter((command) => !runs(command));
if (missing.length > 0 && process.env.RH_REQUIRE_PROMTOOL === '1') throw new Error(`RH_REQUIRE_PROMTOOL=1 but ${missing.join(' and ')} ${missing.length === 1 ? 'does' : 'do'} not run: bash scripts/promtool.sh ensure`);
const skip = missing.length > 0 ? `${missing.join(' and ')} not installed (Debian package prometheus; RH_REQUIRE_PROMTOOL=1 makes this fail)` : false;

const METRICS_PATH = 'resilient-http-metrics';
const CALLS = 6;
/** Each call's items: a 429 with Retry-After: 1 first, a 503 first, two 503s first, a 500 first. */
const pathsOf = (key) => [`429/1/${key}-a`, `fail/1/${key}-b`, `fail/2/${key}-c`, `status/500/1/${key}-d`];

/** The scenario's sender: POST /webhook/metrics-fleet with { paths } -> one item per path -> Resilient HTTP Request, answered when done. */
function fleetWorkflow(baseUrl) {
	return {
		id: 'rhE2eMetricsFleet',
		name: 'e2e: metrics fleet sender',
		nodes: [
			{ id: 'f1', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: 'e2e-metrics-fleet', parameters: { httpMethod: 'POST', path: 'metrics-fleet', responseMode: 'lastNode', options: {} } },
			{ id: 'f2', name: 'One item per path', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.paths', options: { destinationFieldName: 'path' } } },
			{
				id: 'f3',
				name: 'Call the API',
				type: 'n8n-nodes-resilient-http.resilientHttpRequest',
				typeVersion: 1,
				position: [400, 0],
				parameters: { url: `=${baseUrl}/{{ $json.path }}`, maxAttempts: 4, retryOptions: { baseDelay: 100, maxDelay: 300, totalDeadline: 120_000 }, options: {} },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'One item per path', type: 'main', index: 0 }]] },
			'One item per path': { main: [[{ node: 'Call the API', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

let upstream;
let n8n;
let prometheus;
let prometheusUrl;
let workDir;

before(async () => {
	if (skip) return;
	upstream = await startFlakyServer();
	const example = loadExample('10-prometheus-metrics.json', upstream.url);
	const userFolder = await prepareUserFolder({ tarball: true });
	await importWorkflow(userFolder, [example, fleetWorkflow(upstream.url)]);
	n8n = await startN8n(userFolder, { env: ownerEnv() });
	await publishOnServer(await restClient(n8n), [example.id, 'rhE2eMetricsFleet']);
	// a real Prometheus, scraping the example's webhook as an operator would point it at n8n
	workDir = fs.mkdtempSync(path.join(TMP_BASE, 'prometheus-'));
	const config = path.join(workDir, 'prometheus.yml');
	fs.writeFileSync(
		config,
		['global:', '  scrape_interval: 2s', '  scrape_timeout: 2s', 'scrape_configs:', '  - job_name: n8n-resilient-http', `    metrics_path: /webhook/${METRICS_PATH}`, '    static_configs:', `      - targets: ['127.0.0.1:${n8n.port}']`, ''].join('\n'),
	);
	const port = await freePort();
	prometheusUrl = `http://127.0.0.1:${port}`;
	prometheus = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${path.join(workDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', fs.openSync(path.join(workDir, 'prometheus.log'), 'w')] });
	await waitFor(async () => (await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.ok, { timeoutMs: 60_000, what: 'Prometheus ready' });
});
after(async () => {
	if (prometheus && prometheus.exitCode === null) prometheus.kill('SIGTERM');
	await stopN8n();
	await upstream?.close();
	if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** One number of Prometheus' store (an instant query summed to one value), or undefined when it has none. */
async function queried(expr) {
	const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
	const body = await response.json();
	assert.equal(body.status, 'success', JSON.stringify(body));
	return body.data.result.length === 0 ? undefined : Number(body.data.result[0].value[1]);
}

/** The samples of a text exposition by series, `name{labels}`. */
function samplesOf(text) {
	const samples = new Map();
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('#')) continue;
		const at = line.lastIndexOf(' ');
		samples.set(line.slice(0, at), Number(line.slice(at + 1)));
	}
	return samples;
}

test('a fleet-like scenario, scraped by Prometheus from example 10: the counters are what the server saw, and promtool passes the text', { skip }, async () => {
	const keys = Array.from({ length: CALLS }, () => uniqueKey('metrics'));
	const answers = await Promise.all(keys.map((key) => callWebhook(n8n, 'metrics-fleet', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ paths: pathsOf(key) }) })));
	for (const answer of answers) assert.equal(answer.status, 200, await answer.text());
	const items = CALLS * pathsOf('').length;
	const seen = (status) => upstream.log.filter((e) => e.status === status).length;
	assert.equal(seen(200), items, 'every item got its 200 in the end');
	const api = new URL(upstream.url).host;

	// the webhook as Prometheus reads it: the content type of the text format, and promtool's parser and linter
	const scrape = await callWebhook(n8n, METRICS_PATH);
	assert.equal(scrape.status, 200);
	// the type Get Metrics gave, its parameters in the order n8n's server (Express) writes them
	const [type, ...parameters] = scrape.headers.get('content-type').split(';').map((part) => part.trim());
	assert.deepEqual([type, parameters.sort()], ['text/plain', ['charset=utf-8', 'version=0.0.4']]);
	const text = await scrape.text();
	const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
	assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
	assert.equal(`${check.stdout}${check.stderr}`.trim(), '', 'no lint finding');
	const samples = samplesOf(text);
	const series = (name, labels = '') => [...samples].filter(([s]) => s.startsWith(`${name}{api="${api}",`) && s.includes(labels)).reduce((sum, [, v]) => sum + v, 0);
	assert.equal(series('resilient_http_client_responses_total', 'http_response_status_code="429"'), seen(429));
	assert.equal(series('resilient_http_client_requests_total', 'kind="first"'), items);

	// what Prometheus scraped and stored, once its last scrape came after the scenario
	const of = (name, labels = '') => `sum(${name}{api="${api}"${labels}})`;
	const expected = [
		[of('resilient_http_client_responses_total', ',http_response_status_code="429"'), seen(429)],
		[of('resilient_http_client_responses_total', ',http_response_status_code="503"'), seen(503)],
		[of('resilient_http_client_responses_total', ',http_response_status_code="500"'), seen(500)],
		[of('resilient_http_client_responses_total', ',http_response_status_code="200"'), seen(200)],
		[of('resilient_http_client_requests_total', ',kind="first"'), items],
		[of('resilient_http_client_requests_total', ',kind="resend"'), upstream.log.length - items],
		[of('resilient_http_client_request_resend_count_total', ',reason="throttled"'), seen(429)],
		[of('resilient_http_client_request_resend_count_total', ',reason="server_error"'), seen(503) + seen(500)],
		[of('resilient_http_traffic_stops_total'), 0],
	];
	const stored = await waitFor(
		async () => {
			const values = await Promise.all(expected.map(([expr]) => queried(expr)));
			return values.every((value, i) => value === expected[i][1]) ? values : undefined;
		},
		{ timeoutMs: 60_000, intervalMs: 1_000, what: 'Prometheus to store the final counts' },
	).catch(async (error) => {
		const now = await Promise.all(expected.map(async ([expr, want]) => `${expr} = ${await queried(expr)} (want ${want})`));
		throw new Error(`${error.message}\n${now.join('\n')}`);
	});
	console.log(`Prometheus stored: ${expected.map(([expr], i) => `${expr} = ${stored[i]}`).join('; ')}`);
	// the scrape target is up, and the state gauges came along
	assert.equal(await queried('up{job="n8n-resilient-http"}'), 1);
	assert.equal(await queried(of('resilient_http_traffic_hold_state', ',state="closed"')) !== undefined, true);
	assert.ok((await queried(of('resilient_http_traffic_pauses_total'))) >= 1, 'the 429s with Retry-After paused the API');
});
