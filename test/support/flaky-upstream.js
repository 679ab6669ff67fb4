/**
 * The flaky upstream every test tier uses (engine tests in Jest, end-to-end tests against real
 * n8n): a local HTTP server on 127.0.0.1 whose paths fail on purpose. Plain CommonJS so that both
 * ts-jest and the ES-module e2e harness can load it.
 */
'use strict';
const http = require('node:http');

function json(res, status, body, headers = {}) {
	const text = JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

/**
 * A local HTTP server on 127.0.0.1 (random port) whose paths fail on purpose. Counters are per
 * key, so give each test its own key.
 *   /fail/:n/:key              503 for the first n requests, then 200 JSON
 *   /status/:code/:n/:key      status `code` for the first n requests, then 200 JSON
 *   /429/:seconds/:key         first request 429 with `Retry-After: seconds`, then 200
 *   /429date/:seconds/:key     same, Retry-After as an HTTP-date (now + seconds)
 *   /drop-after-processing/:key  reads the body, records it as processed, and on the first
 *                              request destroys the socket without answering; 200 later
 *   /down                      always 503
 *   /hang                      never answers
 *   /echo                      200 { method, path, query, headers, body }
 *   /paged/:key?page=N         a listing of three pages of two records, then []: page 2 answers 429
 *                              with Retry-After: 1 to its first request, page 3 503 to its first
 *                              three; the script starts again once the empty last page was served
 *   /jobs/:seconds/:key        a job API: POST starts a job of `seconds` and answers 202 with
 *                              Location: its status URL (the same path); GET answers 202
 *                              { status: 'running' } until the job is done, then 200
 *                              { status: 'done', result }; GET before any POST: 404
 *   /openai/:key/v1/responses  an OpenAI-compatible Responses API (n8n's OpenAI node, Message a
 *                              Model): the first request of a key answers 429 with OpenAI's
 *                              rate-limit body and headers, later ones 200 with a response whose
 *                              text quotes the prompt; GET /openai/:key/v1/models lists one model
 *   /events/:id                a customer's webhook endpoint: ok-* 503 on the first request then
 *                              200, later-* 503 on the first three (a sender's attempts) then 200,
 *                              bad-* 400 (rejected), down-* always 503
 * options: { port (default 0: a free one), host ('127.0.0.1'), now (Date.now: the jobs' clock, a
 *   test's virtual one), cycle (false): true makes a key
 *   start its script again after it answered 200, so that every run of a workflow sees the same
 *   failures (the demo API of `npm start`); onRequest(entry): called when a request was answered;
 *   backlog: the listen queue's length (Node's default 511) }
 * `scenarios` adds or overrides routes by first path segment:
 *   { custom: (req, res, ctx) => ... } with ctx = { parts, body, count, entry, json }.
 * log: one entry per request { method, path, headers, body, time (epoch ms), t (ms since start),
 *   key, scenario, status (or 'dropped' / 'hung') }.
 */
async function startFlakyServer(scenarios = {}, options = {}) {
	const { port: listenPort = 0, host = '127.0.0.1', cycle = false, onRequest, now = Date.now, backlog } = options;
	const jobsStarted = new Map();
	const log = [];
	const counts = new Map();
	const processed = [];
	const t0 = performance.now();
	const next = (key) => {
		const n = (counts.get(key) ?? 0) + 1;
		counts.set(key, n);
		return n;
	};
	const pagedSeen = new Map();
	const openaiSeen = new Map();
	const builtIn = {
		paged: (req, res, { parts, entry, query }) => {
			const key = parts[1] ?? '';
			const page = Number(query.page ?? 1);
			const seen = (pagedSeen.get(`${key}/${page}`) ?? 0) + 1;
			pagedSeen.set(`${key}/${page}`, seen);
			if (page === 2 && seen === 1) return json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': '1' });
			if (page === 3 && seen <= 3) return json(res, (entry.status = 503), { error: 'Service Unavailable', attempt: seen });
			if (page > 3) for (const k of [...pagedSeen.keys()]) if (k.startsWith(`${key}/`)) pagedSeen.delete(k);
			json(res, (entry.status = 200), page <= 3 ? [1, 2].map((n) => ({ id: `inv-${(page - 1) * 2 + n}`, page, amount: 100 * page + n })) : []);
		},
		fail: (req, res, { parts, count, entry }) => {
			const n = Number(parts[1]);
			if (count <= n) json(res, (entry.status = 503), { error: 'Service Unavailable', attempt: count });
			else json(res, (entry.status = 200), { ok: true, key: entry.key, attempt: count });
		},
		status: (req, res, { parts, count, entry }) => {
			const code = Number(parts[1]);
			const n = Number(parts[2]);
			if (count <= n) json(res, (entry.status = code), { error: `status ${code}`, attempt: count });
			else json(res, (entry.status = 200), { ok: true, key: entry.key, attempt: count });
		},
		429: (req, res, { parts, count, entry }) => {
			if (count === 1) json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': String(parts[1]) });
			else json(res, (entry.status = 200), { ok: true, key: entry.key, attempt: count });
		},
		'429date': (req, res, { parts, count, entry }) => {
			if (count === 1) {
				const date = new Date(Date.now() + Number(parts[1]) * 1000).toUTCString();
				json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': date });
			} else json(res, (entry.status = 200), { ok: true, key: entry.key, attempt: count });
		},
		'drop-after-processing': (req, res, { count, entry, body }) => {
			// Like a payment API: a request whose Idempotency-Key was seen is answered, not processed again
			const idem = req.headers['idempotency-key'];
			const seen = idem !== undefined && processed.some((p) => p.key === entry.key && p.idempotencyKey === idem);
			if (!seen) {
				processed.push({ key: entry.key, idempotencyKey: idem, body, time: entry.time });
				entry.processed = true;
			}
			if (count === 1) {
				entry.status = 'dropped';
				req.socket.destroy();
			} else {
				json(res, (entry.status = 200), {
					ok: true,
					key: entry.key,
					attempt: count,
					processedCount: processed.filter((p) => p.key === entry.key).length,
				});
			}
		},
		jobs: (req, res, { parts, entry }) => {
			const seconds = Number(parts[1]);
			const key = parts[2] ?? '';
			const id = `${seconds}/${key}`;
			if (req.method === 'POST') {
				jobsStarted.set(id, now());
				return json(res, (entry.status = 202), { id: key, status: 'running' }, { location: `/jobs/${id}` });
			}
			const startedAt = jobsStarted.get(id);
			if (startedAt === undefined) return json(res, (entry.status = 404), { error: `no job ${key}: POST /jobs/${id} starts one` });
			const elapsed = now() - startedAt;
			if (elapsed < seconds * 1000) return json(res, (entry.status = 202), { id: key, status: 'running', progress: Math.floor((100 * elapsed) / (seconds * 1000)) });
			json(res, (entry.status = 200), { id: key, status: 'done', result: { rows: 1234, file: `export-${key}.csv` } });
		},
		// OpenAI's answers as its API reference and rate-limit guide show them (a 429 states which limit, and when it resets)
		openai: (req, res, { parts, body, entry }) => {
			if (req.method === 'GET' && parts[parts.length - 1] === 'models') return json(res, (entry.status = 200), { object: 'list', data: [{ id: 'gpt-4.1-mini', object: 'model', owned_by: 'demo' }] });
			const key = parts[1] ?? '';
			const seen = (openaiSeen.get(key) ?? 0) + 1;
			openaiSeen.set(key, seen);
			const limits = { 'x-ratelimit-limit-requests': '3', 'x-ratelimit-reset-requests': '1s' };
			if (seen === 1) {
				const message = 'Rate limit reached for gpt-4.1-mini in organization org-demo on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.';
				return json(res, (entry.status = 429), { error: { message, type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { ...limits, 'x-ratelimit-remaining-requests': '0' });
			}
			// the demo starts its script again once a call got through (cycle): each prompt meets the 429 once
			if (cycle) openaiSeen.delete(key);
			const prompt = JSON.stringify(body?.input ?? '');
			const text = `Demo answer to ${prompt.slice(0, 200)}`;
			return json(res, (entry.status = 200), {
				id: `resp_demo_${entry.count}`,
				object: 'response',
				created_at: Math.floor(Date.now() / 1000),
				status: 'completed',
				model: body?.model ?? 'gpt-4.1-mini',
				output: [{ type: 'message', id: `msg_demo_${entry.count}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
				usage: { input_tokens: Math.ceil(prompt.length / 4), output_tokens: Math.ceil(text.length / 4), total_tokens: Math.ceil(prompt.length / 4) + Math.ceil(text.length / 4) },
			}, { ...limits, 'x-ratelimit-remaining-requests': '2' });
		},
		down: (req, res, { count, entry }) => json(res, (entry.status = 503), { error: 'Service Unavailable', attempt: count }),
		events: (_req, res, { parts, count, entry }) => {
			const id = parts[1] ?? '';
			const failures = id.startsWith('later') ? 3 : 1;
			const status = id.startsWith('bad') ? 400 : id.startsWith('down') || count <= failures ? 503 : 200;
			json(res, (entry.status = status), status === 200 ? { received: id } : { error: status });
		},
		hang: (req, res, { entry }) => {
			entry.status = 'hung';
		},
		echo: (req, res, { entry, body, query }) =>
			json(res, (entry.status = 200), { method: req.method, path: entry.path, query, headers: req.headers, body }),
	};
	const routes = { ...builtIn, ...scenarios };

	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const url = new URL(req.url, 'http://127.0.0.1');
			const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
			const scenario = parts[0] ?? '';
			const key = parts.length > 1 ? parts[parts.length - 1] : scenario;
			const raw = Buffer.concat(chunks).toString('utf8');
			let body = raw;
			if (raw && /json/.test(req.headers['content-type'] ?? '')) {
				try {
					body = JSON.parse(raw);
				} catch {
					/* keep raw */
				}
			}
			const counter = `${scenario}:${key}`;
			const count = next(counter);
			const entry = {
				method: req.method,
				path: url.pathname,
				url: req.url,
				headers: req.headers,
				body,
				time: Date.now(),
				t: Math.round(performance.now() - t0),
				scenario,
				key,
				count,
				status: undefined,
			};
			log.push(entry);
			const handler = routes[scenario];
			if (!handler) return json(res, (entry.status = 404), { error: `no scenario ${scenario}` });
			try {
				handler(req, res, { parts, body, count, entry, json, query: Object.fromEntries(url.searchParams) });
			} catch (error) {
				json(res, (entry.status = 500), { error: String(error) });
			}
			if (cycle && entry.status === 200) counts.delete(counter);
			onRequest?.(entry);
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen({ port: listenPort, host, ...(backlog !== undefined ? { backlog } : {}) }, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address();
	return {
		url: `http://${host}:${port}`,
		port,
		log,
		processed,
		/** Log entries whose path starts with prefix (e.g. '/fail/2/k1'). */
		requests: (prefix = '/') => log.filter((e) => e.path.startsWith(prefix)),
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}


module.exports = { startFlakyServer };
