/**
 * A limit is one module (nodes/shared/core/traffic/limits/limit.ts): a toy limit, "at most N units
 * of cost per API and per minute", written here as one module and added to the package's limits by
 * one line (TrafficParams.limits), is enforced by the controller in memory and in Redis, where two
 * workers share its count. Its state lives under TrafficData.limits, which the Redis store keeps
 * in the state's JSON as it is.
 *
 * The Redis part runs against the server named by RH_TEST_REDIS_URL, and is reported as skipped,
 * with the reason in its name, without it.
 */
import { Redis } from 'ioredis';
import { admit, complete, trafficForgetAt, type Admission, type AdmitRequest, type Outcome, type TrafficData, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import type { Limit } from '../../../nodes/shared/core/traffic/types';
import { TRAFFIC_LIMITS } from '../../../nodes/shared/core/traffic/limits/registry';
import type { StateStore } from '../../../nodes/shared/core/traffic/store';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { closeRedisStateStores, getRedisStateStore, RedisStateStore } from '../../../nodes/shared/state/redis-store';
import { T0 } from '../state/fc-options';

// ---- the toy limit: one module ----

const MINUTE_MS = 60_000;

/** What the toy keeps under TrafficData.limits: the minute it counts, and the cost admitted in it. */
interface PerMinuteState {
	minute: number;
	used: number;
}

/** At most `most` units of cost per API and per minute (a request weighs AdmitRequest.cost, 1 by default). */
function costPerMinute(most: number): Limit {
	const name = 'costPerMinute';
	const usedAt = (data: TrafficData, nowMs: number): number => {
		const state = data.limits?.[name] as PerMinuteState | undefined;
		return state !== undefined && state.minute === Math.floor(nowMs / MINUTE_MS) ? state.used : 0;
	};
	return {
		name,
		verdict({ data, nowMs, cost }) {
			if (usedAt(data, nowMs) + cost <= most) return undefined;
			return { go: false, reason: 'pace', until: (Math.floor(nowMs / MINUTE_MS) + 1) * MINUTE_MS, wake: 'time' };
		},
		// no refusalMerges, no admissionMerges: its verdict reads its own count, so its steps are exact
		admitted({ data, nowMs, cost }) {
			const state: PerMinuteState = { minute: Math.floor(nowMs / MINUTE_MS), used: usedAt(data, nowMs) + cost };
			data.limits = { ...data.limits, [name]: state };
		},
		forgetAt(data) {
			const state = data.limits?.[name] as PerMinuteState | undefined;
			return state ? (state.minute + 1) * MINUTE_MS : -Infinity;
		},
	};
}

// ---- registered by one line ----

const PLAIN: TrafficParams = { window: { ceiling: 1_000, mode: 'fixed' }, leaseMs: 30_000 };
const TOY: TrafficParams = { ...PLAIN, limits: [...TRAFFIC_LIMITS, costPerMinute(5)] };

const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false };
let ids = 0;
const request = (cost?: number): AdmitRequest => ({ id: `toy-${process.pid}-${ids++}`, retry: false, paced: false, ...(cost !== undefined ? { cost } : {}) });

/** A request to `key` at `now`, answered at once: its admission. */
async function call(store: StateStore, key: string, now: number, params: TrafficParams, cost?: number): Promise<Admission> {
	const r = request(cost);
	const admission = await store.traffic(key, now, params, (data, leases) => admit(data, leases, now, r, params));
	if (admission.go) await store.traffic(key, now, params, (data, leases) => complete(data, leases, now, admission.lease, OK, params));
	return admission;
}

/** How many of `costs`' requests go, one after another. */
async function admitted(store: StateStore, key: string, now: number, params: TrafficParams, costs: readonly (number | undefined)[]): Promise<number> {
	let went = 0;
	for (const cost of costs) if ((await call(store, key, now, params, cost)).go) went++;
	return went;
}

describe('a limit added by one module and one line (TrafficParams.limits)', () => {
	it('is enforced in memory: 5 units a minute, a request weighing its cost; the next minute starts afresh', async () => {
		const store = new MemoryStateStore();
		expect(await admitted(store, 'api:plain', T0, PLAIN, Array(8).fill(undefined))).toBe(8);
		expect(await admitted(store, 'api:toy', T0, TOY, Array(8).fill(undefined))).toBe(5);
		const refused = await call(store, 'api:toy', T0 + 1_000, TOY);
		expect(refused).toMatchObject({ go: false, reason: 'pace', until: T0 + MINUTE_MS, wake: 'time' });
		// cost 2 twice is 4 units; a third would be 6
		expect(await admitted(store, 'api:toy', T0 + MINUTE_MS, TOY, [2, 2, 2, 1])).toBe(3);
	});

	it('keeps its state under TrafficData.limits until its minute ends, and its steps need the exact state', () => {
		const step = admit(undefined, { count: 0, soonest: Infinity }, T0, request(3), TOY);
		expect(step.result.go).toBe(true);
		expect(step.data.limits).toEqual({ costPerMinute: { minute: T0 / MINUTE_MS, used: 3 } });
		// its steps read its own count: a store shared by workers must compare the whole state
		expect(step.merges).toBeUndefined();
		// its count matters until its minute ends, within the API's memory of its last request
		expect(TOY.limits!.at(-1)!.forgetAt!(step.data, TOY)).toBe(T0 + MINUTE_MS);
		expect(trafficForgetAt(step.data, TOY)).toBeGreaterThanOrEqual(T0 + MINUTE_MS);
		const refusal = admit(step.data, { count: 1, soonest: T0 + 30_000 }, T0, request(3), TOY);
		expect(refusal.result).toMatchObject({ go: false, reason: 'pace' });
		expect(refusal.merges).toBeUndefined();
	});
});

const REDIS_URL = process.env.RH_TEST_REDIS_URL;
const NO_REDIS = 'skipped: RH_TEST_REDIS_URL not set, no Redis server (export "$(bash scripts/redis-test-server.sh start)")';
const describeRedis = REDIS_URL ? describe : describe.skip;

describeRedis(REDIS_URL ? 'a limit added by one line, in Redis' : `a limit added by one line, in Redis (${NO_REDIS})`, () => {
	const url = new URL(REDIS_URL ?? 'redis://127.0.0.1:6379');
	const connection = { host: url.hostname, port: Number(url.port || 6379), database: Number(url.pathname.slice(1) || 0), tls: false };
	/** This run's keys, so that runs sharing a server do not meet. */
	const prefix = `rh:test-toy-${process.pid}-${Date.now().toString(36)}:`;
	let admin: Redis;
	let other: RedisStateStore;

	beforeAll(async () => {
		admin = new Redis({ host: connection.host, port: connection.port, db: connection.database, lazyConnect: true });
		await admin.connect();
		other = new RedisStateStore(connection, { keyPrefix: prefix });
	});

	afterAll(async () => {
		const keys = await admin.keys(`${prefix}*`);
		if (keys.length > 0) await admin.del(...keys);
		await Promise.all([other.close(), closeRedisStateStores()]);
		await admin.quit();
	});

	it('is enforced across two workers: their requests at once share its count, and it survives the store', async () => {
		const worker = getRedisStateStore(connection, { keyPrefix: prefix });
		const key = `api:toy-${ids++}`;
		const now = Date.now();
		// both workers send 6 requests at once: 5 units a minute for both together
		const admissions = await Promise.all([...Array(6).keys()].flatMap(() => [call(worker, key, now, TOY), call(other, key, now, TOY)]));
		expect(admissions.filter((a) => a.go)).toHaveLength(5);
		expect(await call(other, key, now, TOY)).toMatchObject({ go: false, reason: 'pace' });
		// the state as Redis keeps it, read back: the toy's count is in it
		const [state] = await worker.traffic(key, now, TOY, (data) => ({ data: data!, result: [data?.limits], changed: false }));
		expect(state).toEqual({ costPerMinute: { minute: Math.floor(now / MINUTE_MS), used: 5 } });
	});
});
