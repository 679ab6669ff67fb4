/**
 * The fleet's traffic counts in Redis: what every process counted per API (core/traffic/traffic-counts.ts),
 * added up. A process adds to its own map as requests go, never to Redis on a request's path: once a
 * second at most it sends what it counted since, one script per API (HINCRBY per field, the label,
 * an expiry), and keeps what Redis did not take for the next time. A worker that dies loses at most
 * its last second of counts; an API counted by no process for `ttlMs` is forgotten (its counters
 * start again at 0, which Prometheus reads as a reset).
 *
 * Keys `rh:metrics:{<key>}`: a hash of the count fields and `label`; the braces keep each in the
 * cluster slot of its API's state. Read for an operator (Get Metrics): SCAN, then one HGETALL per
 * API.
 */
import { TrafficCounts, type ApiCounts, type Counts } from '../core/traffic/traffic-counts';
import { script, type RedisClient } from './redis-client';

const FLEET_COUNTS_DEFAULTS = Object.freeze({
	/** How long counts wait in the process before they go to Redis (one script per API per flush). */
	flushMs: 1_000,
	/** An API no process counted for this long is forgotten. */
	ttlMs: 7 * 24 * 3600_000,
});

/** The hash field of the API's label (no count is named so: traffic-counts.ts COUNTERS). */
const LABEL_FIELD = 'label';

/** KEYS[1] the API's hash; ARGV: ttl (ms), label, then field and count pairs. */
const ADD = script(`
for i = 3, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], '${LABEL_FIELD}', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`);

const READ = script(`return redis.call('HGETALL', KEYS[1])`);

/** An API's counts from HGETALL's flat list: whole numbers only (a field of another kind is not ours). */
function countsFromHash(flat: readonly unknown[]): { label: string; counts: Counts } {
	const counts: Counts = {};
	let label = '';
	for (let i = 0; i + 1 < flat.length; i += 2) {
		const field = String(flat[i]);
		if (field === LABEL_FIELD) label = String(flat[i + 1]);
		else if (/^-?\d+$/.test(String(flat[i + 1]))) counts[field] = Number(flat[i + 1]);
	}
	return { label, counts };
}

export class FleetCounts {
	private readonly pending = new TrafficCounts();
	private timer: ReturnType<typeof setTimeout> | undefined;
	/** The flush under way: flushes go one at a time. */
	private flushing: Promise<void> = Promise.resolve();

	constructor(
		private readonly client: RedisClient,
		private readonly keyPrefix: string,
		private readonly options: { flushMs: number; ttlMs: number } = FLEET_COUNTS_DEFAULTS,
	) {}

	private keyFor(key: string): string {
		return `${this.keyPrefix}metrics:{${key.replace(/[{}]/g, '_')}}`;
	}

	/** Adds a request's counts; they go to Redis within flushMs. */
	add(key: string, label: string, counts: Counts): void {
		this.pending.add(key, label, counts);
		this.schedule();
	}

	/** A flush in flushMs, unless one is due already or nothing waits. */
	private schedule(): void {
		if (this.timer !== undefined || this.pending.size === 0) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			// counts Redis did not take are kept: the next flush sends them; nothing waits on this one
			this.flush().catch(() => this.schedule());
		}, this.options.flushMs);
		// counts waiting to go never keep a process alive
		this.timer.unref?.();
	}

	/** Sends what this process counted since the last flush; what Redis did not take is kept for the next one. */
	flush(): Promise<void> {
		const done = this.flushing.then(async () => {
			const taken = this.pending.take();
			for (const [i, api] of taken.entries()) {
				const pairs = Object.entries(api.counts).flatMap(([field, n]) => [field, String(n)]);
				const failed = await this.client.run(ADD, [this.keyFor(api.key)], [String(this.options.ttlMs), api.label, ...pairs]).then(
					() => undefined,
					(error: unknown) => ({ error }),
				);
				if (failed) {
					// kept for the next flush (a script that timed out may have run: its counts then count twice, never lost)
					for (const kept of taken.slice(i)) this.pending.add(kept.key, kept.label, kept.counts);
					return Promise.reject(failed.error);
				}
			}
		});
		// the next flush goes after this one, whether it failed or not; the caller is told of a failure
		this.flushing = done.catch(() => undefined);
		return done;
	}

	/** Every process's counts per API: this process's sent first, so that they are in. */
	async read(): Promise<ApiCounts[]> {
		await this.flush();
		const prefix = `${this.keyPrefix}metrics:{`;
		const found: ApiCounts[] = [];
		for (const redisKey of await this.client.scan(`${prefix}*}`)) {
			const reply = await this.client.run(READ, [redisKey], []);
			if (!Array.isArray(reply) || reply.length === 0) continue;
			found.push({ key: redisKey.slice(prefix.length, -1), ...countsFromHash(reply) });
		}
		return found;
	}

	/** Stops the timer and sends what is left (on close). */
	async close(): Promise<void> {
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
		if (this.pending.size > 0) await this.flush().catch(() => undefined);
	}
}
