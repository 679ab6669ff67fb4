/**
 * The real-n8n benchmark's upstream, run as a child process (fork) so that the clock it stamps
 * requests with is not held up by the benchmark's own work. One HTTP server per row of a scenario:
 * each row is its own API origin, so rows never share a traffic controller (it is per origin and
 * credential). The flaky upstream of test/support with two routes added:
 *
 *   /outage/:key    503 until the outage armed for this server ends, then 200
 *   /limited/:key   at most `limitRps` answers 200 per second (windows of one epoch second); the
 *                   others 429 with Retry-After: 1. With `quotaHeaders`, every answer also says
 *                   x-ratelimit-limit / x-ratelimit-remaining / x-ratelimit-reset (the epoch second
 *                   the window resets at, as GitHub sends it).
 *
 *   /throttled/:key 200, but while a throttle armed for this server lasts: `daily`, HubSpot's
 *                   daily-limit 429 (body policyName DAILY, no Retry-After, no reset header) until
 *                   the quota comes back; `stated`, 429 + Retry-After: S to the first request, which
 *                   sets the end, and to any request before it (with the seconds left)
 *   /slow/:ms/:key  200 after ms milliseconds (a healthy API with latency)
 *   /barrier/:name/:key   held until the barrier `name` opens, then 200: executions that reach
 *                   it send their next request together (a storm "at once", across workers)
 *   /v1/chat/completions  on a server made with `llm`: an OpenAI-compatible API limited in tokens
 *                   and requests per minute (test/bench/llm-upstream.mjs, issue 36)
 *
 * Each request's `exec` query parameter (the n8n execution id) is logged with it. Messages from
 * the parent, each answered with the same `seq`:
 *   { cmd: 'server', limitRps?, quotaHeaders?, llm? }  -> { url }  a new server (a new origin);
 *                                                   llm: the options of openAiChatRoute
 *   { cmd: 'outage', url, durationMs }           -> { until }    503 from now for durationMs
 *   { cmd: 'barrier', url, name, expected, idleMs, outage?: { url, durationMs } }
 *                  -> { openedAt, arrived, timedOut } once `expected` requests wait at the barrier
 *                     (or none came for idleMs): all are answered at once, and the outage (if
 *                     any) starts at that instant
 *   { cmd: 'throttle', url, kind: 'daily', durationMs } -> { until }   the daily limit from now
 *   { cmd: 'throttle', url, kind: 'stated', retryAfterS } -> {}       the stated wait, from the first request
 *   { cmd: 'take', url }                         -> { entries }  requests since the last take:
 *                                                   { key, exec, status, time (epoch ms) }, and on
 *                                                   the llm route tokens (prompt + max_tokens) and model
 *   { cmd: 'close' }                             -> exits
 */
import { startFlakyServer } from '../support/flaky-upstream.js';
import { openAiChatRoute } from './llm-upstream.mjs';

const servers = new Map();

/**
 * A healthy API takes every connection it is offered. With Node's default listen queue (511), the
 * kernel dropped the handshakes it had no room for when HTTP Request connected all 5,000 items at
 * once (170 to 4,250 per execution, in one probe of the healthy rows), and their clients sent the
 * SYN again a second later: the upstream's queue, not the node, set part of those rows' time. The
 * kernel caps the queue at net.core.somaxconn (4,096 on current kernels).
 */
const LISTEN_BACKLOG = 65_535;

async function newServer({ limitRps = 0, quotaHeaders = false, llm }) {
	const state = { outageUntil: 0, windowSecond: 0, windowCount: 0, barriers: new Map(), throttle: undefined };
	const server = await startFlakyServer({
		barrier: (_req, res, { parts, entry, json }) => {
			const barrier = barrierOf(state, parts[1]);
			if (barrier.open) return json(res, (entry.status = 200), { key: entry.key });
			barrier.waiting.push(() => json(res, (entry.status = 200), { key: entry.key }));
			barrier.onArrival();
		},
		throttled: (_req, res, { entry, json }) => {
			const throttle = state.throttle;
			const now = Date.now();
			if (throttle?.kind === 'daily' && now < throttle.until) {
				return json(res, (entry.status = 429), { status: 'error', message: 'You have reached your daily limit.', errorType: 'RATE_LIMIT', policyName: 'DAILY' });
			}
			if (throttle?.kind === 'stated') {
				throttle.until ??= now + throttle.retryAfterS * 1000;
				if (now < throttle.until) return json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': String(Math.ceil((throttle.until - now) / 1000)) });
			}
			json(res, (entry.status = 200), { ok: true, key: entry.key });
		},
		slow: (_req, res, { parts, entry, json }) => {
			setTimeout(() => json(res, (entry.status = 200), { ok: true, key: entry.key }), Math.min(10_000, Number(parts[1]) || 0));
		},
		outage: (_req, res, { entry, json }) => {
			if (Date.now() < state.outageUntil) json(res, (entry.status = 503), { error: 'Service Unavailable' });
			else json(res, (entry.status = 200), { ok: true, key: entry.key });
		},
		limited: (_req, res, { entry, json }) => {
			const second = Math.floor(Date.now() / 1000);
			if (second !== state.windowSecond) {
				state.windowSecond = second;
				state.windowCount = 0;
			}
			const accepted = state.windowCount < limitRps;
			if (accepted) state.windowCount++;
			const quota = quotaHeaders
				? { 'x-ratelimit-limit': String(limitRps), 'x-ratelimit-remaining': String(limitRps - state.windowCount), 'x-ratelimit-reset': String(second + 1) }
				: {};
			if (accepted) json(res, (entry.status = 200), { ok: true, key: entry.key }, quota);
			else json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': '1', ...quota });
		},
		...(llm ? { v1: openAiChatRoute(llm) } : {}),
	}, { backlog: LISTEN_BACKLOG });
	servers.set(server.url, { server, state });
	return server.url;
}

/** A barrier's state; requests may come before the parent arms it. */
function barrierOf(state, name) {
	let barrier = state.barriers.get(name);
	if (!barrier) state.barriers.set(name, (barrier = { open: false, waiting: [], onArrival: () => {} }));
	return barrier;
}

function serverAt(url) {
	const found = servers.get(url);
	if (!found) throw new Error(`no upstream server at ${url}`);
	return found;
}

const handlers = {
	server: async (message) => ({ url: await newServer(message) }),
	outage: async ({ url, durationMs }) => {
		const { state } = serverAt(url);
		state.outageUntil = Date.now() + durationMs;
		return { until: state.outageUntil };
	},
	throttle: async ({ url, kind, durationMs, retryAfterS }) => {
		const { state } = serverAt(url);
		state.throttle = kind === 'daily' ? { kind, until: Date.now() + durationMs } : { kind, retryAfterS, until: undefined };
		return kind === 'daily' ? { until: state.throttle.until } : {};
	},
	barrier: ({ url, name, expected, idleMs, outage }) =>
		new Promise((resolve) => {
			const barrier = barrierOf(serverAt(url).state, name);
			let idle;
			const openNow = (timedOut) => {
				clearTimeout(idle);
				barrier.open = true;
				const openedAt = Date.now();
				if (outage) serverAt(outage.url).state.outageUntil = openedAt + outage.durationMs;
				const arrived = barrier.waiting.length;
				for (const answer of barrier.waiting.splice(0)) answer();
				resolve({ openedAt, arrived, timedOut });
			};
			barrier.onArrival = () => {
				clearTimeout(idle);
				if (barrier.waiting.length >= expected) return openNow(false);
				idle = setTimeout(() => openNow(true), idleMs);
			};
			barrier.onArrival();
		}),
	take: async ({ url }) => {
		const { server } = serverAt(url);
		const entries = server.log.splice(0).map((e) => ({
			key: e.key,
			exec: new URL(e.url, 'http://x').searchParams.get('exec'),
			status: e.status,
			time: e.time,
			...(e.tokens === undefined ? {} : { tokens: e.tokens, model: e.model }),
		}));
		return { entries };
	},
	close: async () => {
		await Promise.all([...servers.values()].map(({ server }) => server.close()));
		process.exit(0);
	},
};

process.on('message', (message) => {
	const handler = handlers[message.cmd];
	const reply = handler ? handler(message) : Promise.reject(new Error(`unknown command ${message.cmd}`));
	reply.then(
		(result) => process.send({ seq: message.seq, ...result }),
		(error) => process.send({ seq: message.seq, error: String(error?.stack ?? error) }),
	);
});
process.on('disconnect', () => process.exit(0));
process.send({ seq: 0, ready: true });
