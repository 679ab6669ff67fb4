/**
 * An API's traffic state as a shared store keeps it: the counts that requests only add to, apart
 * from the rest. Every healthy request adds to counts (the window's growth and start numbers, its
 * first attempt in the budget, its success in the hold and in the pace's history) and changes
 * nothing else; kept apart, those counts can be added to by every worker at once (Redis HINCRBY)
 * instead of each worker comparing and rewriting the whole state, which its neighbours' healthy
 * requests then made it lose about half the time with four workers.
 *
 * - The rest (the pause, the hold's state, the pace, the window's mode...) is one JSON value,
 *   written canonically (keys sorted), so that "did the steps change it" is a string comparison.
 * - The counts are fields of a hash, one per number: `ws` `wt` `wn` the window's size, successes
 *   toward its next step and start numbers; `t` when the API was last used (the largest wins);
 *   `f<n>` `r<n>` the budget's first attempts and retries of bucket n; `c<n>` `x<n>` the hold's
 *   calls and failures of bucket n; `s<n>` the pace's successes of bucket n.
 * - A change of the counts merges when it only adds (a count up, a newer time, a bucket that left
 *   its window dropped): what another worker added at the same time is kept. Anything else (a
 *   window halved, a bucket emptied) needs the exact state, as the rest does.
 *
 * Pure: no store, no n8n. The Redis store (redis-store.ts) splits and joins with it.
 */
import type { Bucket } from '../core/traffic/sliding-window';
import type { TrafficData } from '../core/traffic/controller';

/** The counts of one API's state, by field name. */
export type Counters = Map<string, number>;

/**
 * How to write a change of the counts. `a` adds, `x` keeps the larger, `s` sets, `d` deletes:
 * a merge uses the first two and `d` (buckets only), an exact write `s` and `d`.
 */
export type CounterOp = ['a' | 'x' | 's', string, number] | ['d', string];

/** Bucket fields: their letter, the bucket's number. */
const BUCKET_FIELD = /^([frcxs])(\d+)$/;

/** A state split for the store: the rest as canonical JSON, and the counts. */
export function splitTraffic(data: TrafficData): { base: string; counters: Counters } {
	const counters: Counters = new Map();
	const { touchedAt, window, rate, budget, hold, ...rest } = data;
	counters.set('t', touchedAt);
	counters.set('ws', window.size);
	counters.set('wt', window.toward);
	counters.set('wn', window.starts);
	const base: Record<string, unknown> = {
		...rest,
		window: { slowStart: window.slowStart, roundStartsAt: window.roundStartsAt },
		rate: withoutKey(rate, 'successes'),
	};
	for (const [n, count] of rate.successes) add(counters, `s${n}`, count);
	if (budget) {
		base.budget = withoutKey(budget, 'buckets');
		putBuckets(counters, budget.buckets, 'f', 'r');
	}
	if (hold) {
		base.hold = withoutKey(hold, 'buckets');
		putBuckets(counters, hold.buckets, 'c', 'x');
	}
	return { base: canonicalJson(base), counters };
}

/** The state again from its parts; undefined when the rest is no state of ours. */
export function joinTraffic(base: unknown, counters: Counters): TrafficData | undefined {
	if (typeof base !== 'object' || base === null) return undefined;
	const b = base as Partial<TrafficData>;
	if (typeof b.window !== 'object' || b.window === null || typeof b.rate !== 'object' || b.rate === null) return undefined;
	const budgetBuckets: Bucket[] = [];
	const holdBuckets: Bucket[] = [];
	const successes: Array<[number, number]> = [];
	const bucketOf = (list: Bucket[], n: number): Bucket => {
		let bucket = list.find(([m]) => m === n);
		if (!bucket) list.push((bucket = [n, 0, 0]));
		return bucket;
	};
	for (const [field, value] of counters) {
		const match = BUCKET_FIELD.exec(field);
		if (!match) continue;
		const n = Number(match[2]);
		const letter = match[1];
		if (letter === 's') successes.push([n, value]);
		else if (letter === 'f' || letter === 'r') bucketOf(budgetBuckets, n)[letter === 'f' ? 1 : 2] = value;
		else bucketOf(holdBuckets, n)[letter === 'c' ? 1 : 2] = value;
	}
	const byNumber = (x: [number, ...number[]], y: [number, ...number[]]) => x[0] - y[0];
	// a count the hash does not hold is read from the JSON, where a state written before the split
	// kept it (an upgrade); else it starts again: a window of one, in slow start
	const data: TrafficData = {
		...(b as TrafficData),
		...withScalarCounts(b.window, b.touchedAt, counters),
		rate: { ...b.rate, successes: successes.length > 0 || !Array.isArray(b.rate.successes) ? successes.sort(byNumber) : b.rate.successes },
	};
	if (b.budget) data.budget = { ...b.budget, buckets: budgetBuckets.length > 0 || !Array.isArray(b.budget.buckets) ? budgetBuckets.sort(byNumber) : b.budget.buckets };
	if (b.hold) data.hold = { ...b.hold, buckets: holdBuckets.length > 0 || !Array.isArray(b.hold.buckets) ? holdBuckets.sort(byNumber) : b.hold.buckets };
	return data;
}

/**
 * What changed between two sets of counts: as a merge (undefined when it is not one: a count went
 * down, a time back, a scalar vanished) and as an exact write.
 */
export function counterChanges(before: Counters, after: Counters): { merge: CounterOp[] | undefined; exact: CounterOp[] } {
	const exact: CounterOp[] = [];
	let merge: CounterOp[] | undefined = [];
	for (const [field, value] of after) {
		const was = before.get(field);
		if (was === value) continue;
		exact.push(['s', field, value]);
		if (!merge) continue;
		if (field === 't') merge.push(['x', field, value]);
		else if (value > (was ?? 0)) merge.push(['a', field, value - (was ?? 0)]);
		else merge = undefined;
	}
	for (const field of before.keys()) {
		if (after.has(field)) continue;
		exact.push(['d', field]);
		// a bucket that left its window leaves it for every worker
		if (merge && BUCKET_FIELD.test(field)) merge.push(['d', field]);
		else merge = undefined;
	}
	return { merge, exact };
}

/** The counts a hash holds (HGETALL's flat list); fields that are not counts of ours are left out. */
export function countersFromHash(flat: readonly unknown[]): Counters {
	const counters: Counters = new Map();
	for (let i = 0; i + 1 < flat.length; i += 2) {
		const field = String(flat[i]);
		const value = Number(flat[i + 1]);
		if ((field === 't' || field === 'ws' || field === 'wt' || field === 'wn' || BUCKET_FIELD.test(field)) && Number.isFinite(value)) counters.set(field, value);
	}
	return counters;
}

/** The window's counts and the last use, which every merge hands back (so a worker sees the window others grew). */
export const SCALAR_FIELDS = Object.freeze(['ws', 'wt', 'wn', 't'] as const);

/** The window's size: a merge's verdict holds only while it is at most what the steps saw. */
export const WINDOW_SIZE_FIELD = 'ws';

/** The window and the last use with the counts `counters` holds; those it does not hold are the given ones (or start again). */
export function withScalarCounts(window: Partial<TrafficData['window']>, touchedAt: number | undefined, counters: Counters): Pick<TrafficData, 'window' | 'touchedAt'> {
	return {
		window: { ...(window as TrafficData['window']), size: counters.get('ws') ?? window.size ?? 1, toward: counters.get('wt') ?? window.toward ?? 0, starts: counters.get('wn') ?? window.starts ?? 0 },
		touchedAt: counters.get('t') ?? touchedAt ?? 0,
	};
}

function putBuckets(counters: Counters, buckets: readonly Bucket[], a: string, b: string): void {
	for (const [n, first, second] of buckets) {
		add(counters, `${a}${n}`, first);
		add(counters, `${b}${n}`, second);
	}
}

/** Two buckets of one number (a state written before buckets were kept one per number) add up. */
function add(counters: Counters, field: string, value: number): void {
	counters.set(field, (counters.get(field) ?? 0) + value);
}

function withoutKey<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
	const { [key]: _dropped, ...rest } = value;
	return rest;
}

/** JSON with every object's keys sorted (undefined values left out, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const record = value as Record<string, unknown>;
		const keys = Object.keys(record)
			.filter((key) => record[key] !== undefined)
			.sort();
		return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}
