/**
 * The benchmark's upstream, run as a child process (`fork`) so that its request timestamps are
 * not delayed by the engine's CPU work, and the engine's CPU (process.cpuUsage) holds no server
 * work. The flaky upstream of test/support with the benchmark's routes added:
 *   /outage/:untilEpochMs/:key   503 until the given epoch ms, then 200
 *   /ok/:key                     200
 *   /slow/:ms/:key               200 after ms milliseconds (an API with latency)
 * Messages from the parent: { cmd: 'take' } answers { cmd: 'log', entries } with the requests
 * logged since the last take (method, path, key, status, time in epoch ms, idempotency key).
 */
'use strict';
const { startFlakyServer } = require('../support/flaky-upstream');

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
