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
 *   calls and failures of bucket n; `s<n>` the pace's successes of bucket n. Each part that holds
 *   counts is one entry of SCALAR_COUNTS or BUCKET_COUNTS below, which every function here and
 *   the Redis script read.
 * - A change of the counts merges when it only adds (a count up, a newer time, a bucket that left
 *   its window dropped): what another worker added at the same time is kept. Anything else (a
 *   window halved, a bucket emptied) needs the exact state, as the rest does.
 *
 * Pure: no store, no n8n. The Redis store (redis-store.ts) splits and joins with it.
 */
import type { TrafficData } from '../core/traffic/controller';

/** The counts of one API's state, by field name. */
export type Counters = Map<string, number>;

/**
 * How to write a change of the counts. `a` adds, `x` keeps the larger, `s` sets, `d` deletes:
 * a merge uses the first two and `d` (buckets only), an exact write `s` and `d`.
 */
export type CounterOp = ['a' | 'x' | 's', string, number] | ['d', string];

/**
 * The parts of the state that hold counts, one entry each: the Lua (through state/step-codec.ts),
 * splitTraffic, joinTraffic and counterChanges all read these tables, so a new limit's counts are
 * one entry here. The field names are what Redis holds: never rename one (states written by an
 * earlier version are read as they are).
 *
 * A scalar is one number: at `part` of the state (or `part.key`), merged by adding to it (`add`:
 * a merge only ever adds) or by keeping the larger (`larger`: a time); `initial` when neither the
 * hash nor the JSON holds it. Listed in the order the counts are written.
 */
const SCALAR_COUNTS = [
	{ field: 't', part: 'touchedAt', key: undefined, merge: 'larger', initial: 0 },
	{ field: 'ws', part: 'window', key: 'size', merge: 'add', initial: 1 },
	{ field: 'wt', part: 'window', key: 'toward', merge: 'add', initial: 0 },
	{ field: 'wn', part: 'window', key: 'starts', merge: 'add', initial: 0 },
] as const satisfies ReadonlyArray<{ field: string; part: keyof TrafficData; key: string | undefined; merge: 'add' | 'larger'; initial: number }>;

/**
 * Buckets: `part.key` is a list [n, count per letter...] by bucket number n, each count the hash
 * field `<letter><n>`. Merged by adding; a bucket that left its window leaves it for every
 * worker. `optional`: the part is only there when its limit is on.
 */
const BUCKET_COUNTS = [
	/** the pace's successes */
	{ part: 'rate', key: 'successes', letters: ['s'], optional: false },
	/** the budget's first attempts and retries */
	{ part: 'budget', key: 'buckets', letters: ['f', 'r'], optional: true },
	/** the hold's calls and failures */
	{ part: 'hold', key: 'buckets', letters: ['c', 'x'], optional: true },
] as const satisfies ReadonlyArray<{ part: keyof TrafficData; key: string; letters: readonly string[]; optional: boolean }>;

type ScalarPart = (typeof SCALAR_COUNTS)[number]['part'];
type Row = readonly [number, ...number[]];

/** Bucket fields: their letter, the bucket's number. */
const BUCKET_FIELD = new RegExp(`^([${BUCKET_COUNTS.flatMap((b) => b.letters).join('')}])(\\d+)$`);
const SCALAR_FIELD = new Set<string>(SCALAR_COUNTS.map((c) => c.field));

/** The window's counts and the last use, which every merge hands back (so a worker sees the window others grew). */
export const SCALAR_FIELDS: readonly string[] = Object.freeze(SCALAR_COUNTS.map((c) => c.field));

/** The window's size: a merge's verdict holds only while it is at most what the steps saw. */
export const WINDOW_SIZE_FIELD = SCALAR_COUNTS.find((c) => c.part === 'window' && c.key === 'size')!.field;

/** A state split for the store: the rest as canonical JSON, and the counts. */
export function splitTraffic(data: TrafficData): { base: string; counters: Counters } {
	const counters: Counters = new Map();
	const base: Record<string, unknown> = { ...data };
	for (const { field, part, key } of SCALAR_COUNTS) {
		if (key === undefined) {
			counters.set(field, data[part] as number);
			delete base[part];
		} else {
			const object = base[part] as Record<string, unknown>;
			counters.set(field, object[key] as number);
			base[part] = withoutKey(object, key);
		}
	}
	for (const { part, key, letters } of BUCKET_COUNTS) {
		const value = data[part] as Record<string, unknown> | undefined;
		if (!value) {
			delete base[part];
			continue;
		}
		base[part] = withoutKey(value, key);
		for (const [n, ...counts] of value[key] as Row[]) letters.forEach((letter, i) => add(counters, `${letter}${n}`, counts[i]));
	}
	return { base: canonicalJson(base), counters };
}

/** The state again from its parts; undefined when the rest is no state of ours. */
export function joinTraffic(base: unknown, counters: Counters): TrafficData | undefined {
	if (typeof base !== 'object' || base === null) return undefined;
	const b = base as Partial<TrafficData>;
	if (typeof b.window !== 'object' || b.window === null || typeof b.rate !== 'object' || b.rate === null) return undefined;
	const rows = BUCKET_COUNTS.map(() => [] as number[][]);
	for (const [field, value] of counters) {
		const match = BUCKET_FIELD.exec(field);
		if (!match) continue;
		const n = Number(match[2]);
		const at = BUCKET_COUNTS.findIndex((b) => (b.letters as readonly string[]).includes(match[1]));
		const letters: readonly string[] = BUCKET_COUNTS[at].letters;
		let row = rows[at].find(([m]) => m === n);
		if (!row) rows[at].push((row = [n, ...letters.map(() => 0)]));
		row[1 + letters.indexOf(match[1])] = value;
	}
	// a count the hash does not hold is read from the JSON, where a state written before the split
	// kept it (an upgrade); else it starts again: a window of one, in slow start
	const data: Record<string, unknown> = { ...b, ...withScalarCounts(b, counters) };
	BUCKET_COUNTS.forEach(({ part, key }, i) => {
		const value = b[part] as Record<string, unknown> | undefined;
		if (!value) return;
		const kept = value[key];
		data[part] = { ...value, [key]: rows[i].length > 0 || !Array.isArray(kept) ? rows[i].sort((x, y) => x[0] - y[0]) : kept };
	});
	return data as unknown as TrafficData;
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
		if (SCALAR_COUNTS.some((c) => c.field === field && c.merge === 'larger')) merge.push(['x', field, value]);
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
		if ((SCALAR_FIELD.has(field) || BUCKET_FIELD.test(field)) && Number.isFinite(value)) counters.set(field, value);
	}
	return counters;
}

/** The scalar counts' parts (the window, the last use) with the counts `counters` holds; those it does not hold are the given ones (or start again). */
export function withScalarCounts(data: Partial<TrafficData>, counters: Counters): Pick<TrafficData, ScalarPart> {
	const out: Record<string, unknown> = {};
	for (const { field, part, key, initial } of SCALAR_COUNTS) {
		if (key === undefined) {
			out[part] = counters.get(field) ?? data[part] ?? initial;
		} else {
			const object = (out[part] ?? { ...(data[part] as object) }) as Record<string, unknown>;
			object[key] = counters.get(field) ?? object[key] ?? initial;
			out[part] = object;
		}
	}
	return out as Pick<TrafficData, ScalarPart>;
}

/** Two buckets of one number (a state written before buckets were kept one per number) add up. */
function add(counters: Counters, field: string, value: number): void {
	counters.set(field, (counters.get(field) ?? 0) + value);
}

function withoutKey<T extends object>(value: T, key: string): Partial<T> {
	const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
	return rest as Partial<T>;
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
