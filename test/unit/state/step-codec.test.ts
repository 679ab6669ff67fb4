/**
 * The store's contract with its STEP script (nodes/shared/state/step-codec.ts): a typed plan goes
 * out as the very arguments the script has always taken (so a call's bytes do not change), and
 * the script, reading them by name, does what the plan says; its replies come back typed. The
 * part against Redis runs with RH_TEST_REDIS_URL.
 */
import { Redis } from 'ioredis';
import { decodeStep, encodeStep, READ, STEP, type StepPlan } from '../../../nodes/shared/state/step-codec';

const KEY = `rh-test:traffic:{codec-${process.pid}}`;

const exact: StepPlan = {
	redisKey: KEY,
	check: { merge: false, version: '', sequence: '', inFlight: 0 },
	nowMs: 1_000,
	write: { value: 'v1\n{"a":1}' },
	ttlMs: 60_000,
	leaseTtlMs: 45_000,
	counterOps: [
		['s', 'ws', 4],
		['s', 't', 1_000],
	],
	leases: { prefix: 'p', first: 0, added: 2, endsInMs: 30_000, ended: [] },
	publish: true,
	from: 'p',
};

const merge: StepPlan = {
	...exact,
	check: { merge: true, version: 'v1', fewest: 1, most: 10, windowAtMost: 8, room: { size: 4, ceiling: 40 } },
	nowMs: 1_500,
	write: undefined,
	counterOps: [
		['a', 'ws', 1],
		['x', 't', 1_500],
		['a', 'f7', 2],
	],
	leases: { prefix: 'p', first: 2, added: 1, endsInMs: 30_000, ended: [0, 1] },
	publish: false,
};

describe('the STEP arguments', () => {
	it('an exact write: the check, the value, the counts and the leases in the script order', () => {
		const call = encodeStep(exact);
		expect(call.keys).toEqual([KEY, `${KEY}:leases`, `${KEY}:counts`]);
		expect(call.args).toEqual(['x', '', '', '0', '0', '1000', 'v1\n{"a":1}', '60000', '45000', `${KEY}:free`, 'p', '', '', '', '6', 's', 'ws', '4', 's', 't', '1000', 'p', '0', '2', '30000', '']);
		expect(call.bytes).toBe(call.args.join('').length + call.keys.join('').length);
	});

	it('a merge: its range, its window check, what it adds and the leases it ends', () => {
		expect(encodeStep(merge).args).toEqual(['m', 'v1', '', '1', '10', '1500', '', '60000', '45000', '', 'p', '8', '4', '40', '9', 'a', 'ws', '1', 'x', 't', '1500', 'a', 'f7', '2', 'p', '2', '1', '30000', '0,1']);
	});

	it('no most, any window, no room and a delete go as empty arguments and "-"', () => {
		const open: StepPlan = { ...merge, check: { merge: true, version: 'v1', fewest: 0, most: Infinity, windowAtMost: Infinity, room: undefined }, counterOps: [] };
		expect(encodeStep(open).args.slice(0, 15)).toEqual(['m', 'v1', '', '0', '', '1500', '', '60000', '45000', '', 'p', '', '', '', '0']);
		expect(encodeStep({ ...exact, write: 'delete' }).args[6]).toBe('-');
	});
});

describe('the STEP script', () => {
	it('declares every argument and key it reads, from the codec, and reads every one it declares', () => {
		for (const { source, prefix, array } of [
			{ source: STEP.source, prefix: 'args', array: 'ARGV' },
			{ source: READ.source, prefix: 'args', array: 'ARGV' },
			{ source: STEP.source, prefix: 'keys', array: 'KEYS' },
		]) {
			const declared = [...source.matchAll(new RegExp(`(\\w+) = ${array}\\[(?:\\d|OPS_FROM)`, 'g'))].map((m) => m[1]);
			const read = new Set([...source.matchAll(new RegExp(`\\b${prefix}\\.(\\w+)`, 'g'))].map((m) => m[1]));
			expect(new Set(declared).size).toBe(declared.length);
			expect([...read].sort()).toEqual([...declared].sort());
		}
		// READ's one argument, and STEP's fixed ones before the count changes and the five lease arguments after them
		expect(READ.source).toContain('now = ARGV[1]');
		expect(STEP.source).toContain('local OPS_FROM = 16');
	});
});

describe('the STEP replies', () => {
	it('applied: the leases, the soonest end, the sequence and the window counts it holds', () => {
		// in the order of SCALAR_FIELDS: t ws wt wn
		const reply = decodeStep([1, 2, '31000', '3', '1500', '5', null, '7']);
		expect(reply).toEqual({ applied: true, inFlight: 2, soonest: 31_000, sequence: '3', scalars: new Map([['t', 1_500], ['ws', 5], ['wn', 7]]) });
		expect(decodeStep([1, 0, '', '', null, null, null, null])).toMatchObject({ soonest: Infinity, scalars: new Map() });
	});

	it('lost: what Redis holds and why', () => {
		expect(decodeStep([0, 'v2\n{}', 3, '9', '4', ['ws', '2'], 'inFlight'])).toEqual({ applied: false, value: 'v2\n{}', inFlight: 3, soonest: '9', sequence: '4', hash: ['ws', '2'], lostTo: 'inFlight' });
		expect(decodeStep([0, '', 0, '', '', [], 'other'])).toMatchObject({ lostTo: undefined });
	});

	it('anything but a list is no reply of STEP', () => {
		expect(decodeStep('OK')).toBeUndefined();
		expect(decodeStep(null)).toBeUndefined();
	});
});

const REDIS_URL = process.env.RH_TEST_REDIS_URL;
(REDIS_URL ? describe : describe.skip)('STEP on Redis reads its arguments by name', () => {
	let redis: Redis;
	const run = (plan: StepPlan) => {
		const call = encodeStep(plan);
		return redis.eval(STEP.source, call.keys.length, ...call.keys, ...call.args).then((reply) => decodeStep(reply));
	};

	beforeAll(() => {
		redis = new Redis(REDIS_URL!);
	});
	afterAll(async () => {
		await redis.del(KEY, `${KEY}:leases`, `${KEY}:counts`);
		redis.disconnect();
	});

	it('writes an exact plan, adds a merge to it, and hands a stale one back what it holds', async () => {
		await redis.del(KEY, `${KEY}:leases`, `${KEY}:counts`);
		expect(await run(exact)).toEqual({ applied: true, inFlight: 2, soonest: 31_000, sequence: '1', scalars: new Map([['t', 1_000], ['ws', 4]]) });
		expect(await redis.get(KEY)).toBe('v1\n{"a":1}');
		expect(await redis.zrange(`${KEY}:leases`, 0, -1)).toEqual(['p0', 'p1']);

		expect(await run(merge)).toEqual({ applied: true, inFlight: 1, soonest: 31_500, sequence: '2', scalars: new Map([['t', 1_500], ['ws', 5]]) });
		expect(await redis.hgetall(`${KEY}:counts`)).toEqual({ ws: '5', t: '1500', f7: '2', _: '2' });
		expect(await redis.zrange(`${KEY}:leases`, 0, -1)).toEqual(['p2']);
		expect(await redis.pttl(KEY)).toBeGreaterThan(50_000);

		const stale = await run({ ...merge, check: { ...merge.check, version: 'v0' }, leases: { ...merge.leases, added: 0, ended: [] } });
		expect(stale).toMatchObject({ applied: false, value: 'v1\n{"a":1}', inFlight: 1, soonest: '31500', sequence: '2', lostTo: 'state' });
		const tooLarge = await run({ ...merge, check: { merge: true, version: 'v1', fewest: 0, most: Infinity, windowAtMost: 4, room: undefined } });
		expect(tooLarge).toMatchObject({ applied: false, lostTo: 'window' });
		expect(await run({ ...exact, check: { merge: false, version: 'v1', sequence: '1', inFlight: 1 } })).toMatchObject({ applied: false, lostTo: 'counts' });
	});

	it('deletes the state and its counts on a delete, and ends leases by number', async () => {
		await run({ ...exact, nowMs: 2_000, check: { merge: false, version: 'v1', sequence: '2', inFlight: 1 }, write: 'delete', counterOps: [], leases: { prefix: 'p', first: 3, added: 0, endsInMs: 0, ended: [2] } });
		expect(await redis.exists(KEY, `${KEY}:counts`, `${KEY}:leases`)).toBe(0);
	});
});
