/**
 * The benchmark's upstream, run as a child process (`fork`) so that its request timestamps are
 * not delayed by the engine's CPU work, and the engine's CPU (process.cpuUsage) holds no server
 * work. The flaky upstream of test/support (/down, /429/:seconds/:key, /status/...) with the
 * benchmark's routes added:
 *   /outage/:untilEpochMs/:key   503 until the given epoch ms, then 200
 *   /ok/:key                     200
 *   /slow/:ms/:key               200 after ms milliseconds (an API with latency)
 *   /limited/:limiter/:rps/:headers/:key
 *                                a rate limit shared by every request naming the same limiter:
 *                                a token bucket holding `rps` tokens, refilled continuously at
 *                                `rps` per second (a burst of `rps`, then `rps` per second). A
 *                                request that finds no whole token is answered 429 with
 *                                `Retry-After: 1`. headers = 1: every answer (200 and 429) also
 *                                carries x-ratelimit-limit, x-ratelimit-remaining (whole tokens
 *                                left) and x-ratelimit-reset (seconds until the bucket is full
 *                                again, 3 decimals).
 * Messages from the parent: { cmd: 'take' } answers { cmd: 'log', entries } with the requests
 * logged since the last take (method, path, key, status, time in epoch ms, idempotency key).
 */
'use strict';
const { startFlakyServer } = require('../support/flaky-upstream');

/** Token buckets by limiter name (each benchmark row names a new one). */
const buckets = new Map();

function takeToken(name, rps, now) {
	let bucket = buckets.get(name);
	if (!bucket) buckets.set(name, (bucket = { tokens: rps, at: now }));
	bucket.tokens = Math.min(rps, bucket.tokens + ((now - bucket.at) * rps) / 1000);
	bucket.at = now;
	const admitted = bucket.tokens >= 1;
	if (admitted) bucket.tokens -= 1;
	return { admitted, remaining: Math.floor(bucket.tokens), resetSeconds: (rps - bucket.tokens) / rps };
}

async function main() {
	const server = await startFlakyServer({
		outage: (req, res, { parts, entry, json }) => {
			const until = Number(parts[1]);
			if (Date.now() < until) json(res, (entry.status = 503), { error: 'Service Unavailable' });
			else json(res, (entry.status = 200), { ok: true });
		},
		ok: (req, res, { entry, json }) => json(res, (entry.status = 200), { ok: true }),
		slow: (req, res, { parts, entry, json }) => {
			setTimeout(() => json(res, (entry.status = 200), { ok: true }), Math.min(10_000, Number(parts[1]) || 0));
		},
		limited: (req, res, { parts, entry, json }) => {
			const [, name, rpsText, headersFlag] = parts;
			const rps = Math.max(1, Number(rpsText) || 1);
			const { admitted, remaining, resetSeconds } = takeToken(name, rps, Date.now());
			const quota = headersFlag === '1' ? { 'x-ratelimit-limit': String(rps), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': resetSeconds.toFixed(3) } : {};
			if (admitted) json(res, (entry.status = 200), { ok: true }, quota);
			else json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': '1', ...quota });
		},
	});
	process.on('message', (message) => {
		if (message.cmd === 'take') {
			const entries = server.log.splice(0).map((e) => ({
				method: e.method,
				path: e.path,
				key: e.key,
				status: e.status,
				time: e.time,
				idempotencyKey: e.headers['idempotency-key'],
			}));
			process.send({ cmd: 'log', entries });
		} else if (message.cmd === 'close') {
			server.close().then(() => process.exit(0));
		}
	});
	process.on('disconnect', () => process.exit(0));
	process.send({ cmd: 'ready', url: server.url });
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
