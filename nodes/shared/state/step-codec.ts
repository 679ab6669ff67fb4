/**
 * The one place that knows how the Redis store talks to its scripts (state/step-script.ts): a
 * typed plan becomes STEP's KEYS and ARGV, its reply a typed result. The positions are the lists
 * below; the scripts read them by these names (a `local` prelude made from the same lists), so an
 * argument added, moved or dropped changes the lists here and nowhere else.
 *
 * STEP's ARGV, in order (STEP_ARGV, then the count changes, then STEP_LEASE_ARGV):
 *   mode          'x' an exact write | 'm' a merge
 *   version       the version the steps started from ('' none)
 *   sequence      the counts' sequence they saw (exact only)
 *   fewest most   the fewest and most leases in flight their verdicts hold for ('' no most)
 *   now           the caller's clock (whole ms)
 *   value         the new value ('' write nothing, '-' delete; exact only)
 *   ttl           the state's time to live (ms; a merge only lengthens it)
 *   leaseTtl      the leases' time to live (ms)
 *   channel       a channel to publish on ('' none); message: what it publishes (the sender)
 *   windowAtMost  the largest window size the verdicts hold for ('' any; a merge only)
 *   roomSize roomCeiling  the window size the most in flight is for and its ceiling ('' none)
 *   ops           k, the number of count-change arguments that follow (from OPS_FROM)
 *   prefix first adds endsIn ends   the lease changes, five arguments whatever the steps: this
 *                 process's prefix of lease names, the first number added and how many, their
 *                 end (ms after `now`: a few digits, not an epoch), the numbers ended ('a,b,c')
 *
 * STEP's reply: {1, leases, soonest end, sequence, ...the SCALAR_FIELDS} when applied; {0, value,
 * leases, soonest end, sequence, every count (HGETALL), why} when not.
 */
import { script } from './redis-client';
import type { CounterOp } from './traffic-counters';
import { SCALAR_FIELDS, WINDOW_SIZE_FIELD } from './traffic-counters';
import { READ_BODY, STEP_BODY } from './step-script';

const KEYS = ['state', 'leases', 'counts'] as const;
const STEP_ARGV = ['mode', 'version', 'sequence', 'fewest', 'most', 'now', 'value', 'ttl', 'leaseTtl', 'channel', 'message', 'windowAtMost', 'roomSize', 'roomCeiling', 'ops'] as const;
const STEP_LEASE_ARGV = ['prefix', 'first', 'adds', 'endsIn', 'ends'] as const;
const READ_ARGV = ['now'] as const;

/** The `local` declarations that name a script's KEYS and ARGV (and the count fields it reads). */
function prelude(argv: readonly string[], tail: readonly string[]): string {
	const named = (list: readonly string[], array: string, from: string) => list.map((name, i) => `${name} = ${array}[${from}${i + 1}]`).join(', ');
	const lines = [`local keys = {${named(KEYS, 'KEYS', '')}}`, `local args = {${named(argv, 'ARGV', '')}}`];
	if (tail.length > 0) {
		lines.push(`local OPS_FROM = ${argv.length + 1}`, 'local opCount = tonumber(args.ops)');
		lines.push(...tail.map((name, i) => `args.${name} = ARGV[OPS_FROM + opCount + ${i}]`));
	}
	lines.push(`local WINDOW_SIZE = '${WINDOW_SIZE_FIELD}'`, `local SCALARS = {${SCALAR_FIELDS.map((f) => `'${f}'`).join(', ')}}`);
	return lines.join('\n');
}

export const STEP = script(`${prelude(STEP_ARGV, STEP_LEASE_ARGV)}\n${STEP_BODY}`);
export const READ = script(`${prelude(READ_ARGV, [])}\n${READ_BODY}`);

/** Why a script did not apply: another version, leases in flight out of range, a window others grew, counts others added to before an exact write. */
export type LostTo = 'state' | 'inFlight' | 'window' | 'counts';

/** What a batch's verdicts need of the state to hold. */
type StepCheck =
	| {
			merge: true;
			version: string;
			fewest: number;
			/** Infinity: no most. */
			most: number;
			/** Infinity: any window. */
			windowAtMost: number;
			/** The window size `most` is for and its ceiling: a grown window raises it as much. */
			room: { size: number; ceiling: number } | undefined;
	  }
	| { merge: false; version: string; sequence: string; inFlight: number };

/** One STEP call, typed. */
export interface StepPlan {
	/** The API's state key (`rh:traffic:{<key>}`); its leases, counts and channel are named after it. */
	redisKey: string;
	check: StepCheck;
	nowMs: number;
	/** undefined: write nothing; 'delete': the state and its counts go. */
	write: { value: string } | 'delete' | undefined;
	ttlMs: number;
	leaseTtlMs: number;
	counterOps: readonly CounterOp[];
	leases: { prefix: string; first: number; added: number; endsInMs: number; ended: readonly number[] };
	/** Wake other workers' waiters; `from` tells a process its own news. */
	publish: boolean;
	from: string;
}

export type StepReply =
	| { applied: true; inFlight: number; soonest: number; sequence: string; scalars: ReadonlyMap<string, number> }
	| { applied: false; value: string; inFlight: number; soonest: string; sequence: string; hash: unknown; lostTo: LostTo | undefined };

/** A call's KEYS and ARGV, and its size as the store counts it. */
interface EncodedCall {
	keys: string[];
	args: string[];
	bytes: number;
}

function stepKeys(redisKey: string): string[] {
	return [redisKey, `${redisKey}:leases`, `${redisKey}:counts`];
}

/** The channel a step that may let a request go publishes on. */
export function freeChannel(redisKey: string): string {
	return `${redisKey}:free`;
}

const optional = (n: number): string => (Number.isFinite(n) ? String(n) : '');

function checkArgs(check: StepCheck): { head: string[]; window: string[] } {
	if (!check.merge) return { head: ['x', check.version, check.sequence, String(check.inFlight), String(check.inFlight)], window: ['', '', ''] };
	const room = check.room ? [String(check.room.size), String(check.room.ceiling)] : ['', ''];
	return { head: ['m', check.version, '', String(check.fewest), optional(check.most)], window: [optional(check.windowAtMost), ...room] };
}

export function encodeStep(plan: StepPlan): EncodedCall {
	const { head, window } = checkArgs(plan.check);
	const write = plan.write === undefined ? '' : plan.write === 'delete' ? '-' : plan.write.value;
	const ops = plan.counterOps.flatMap((op) => op.map(String));
	const { prefix, first, added, endsInMs, ended } = plan.leases;
	const named: Record<(typeof STEP_ARGV)[number], string> = {
		mode: head[0], version: head[1], sequence: head[2], fewest: head[3], most: head[4],
		now: String(plan.nowMs), value: write, ttl: String(plan.ttlMs), leaseTtl: String(plan.leaseTtlMs),
		channel: plan.publish ? freeChannel(plan.redisKey) : '', message: plan.from,
		windowAtMost: window[0], roomSize: window[1], roomCeiling: window[2], ops: String(ops.length),
	};
	const leaseArgs: Record<(typeof STEP_LEASE_ARGV)[number], string> = { prefix, first: String(first), adds: String(added), endsIn: String(endsInMs), ends: ended.join(',') };
	const args = [...STEP_ARGV.map((name) => named[name]), ...ops, ...STEP_LEASE_ARGV.map((name) => leaseArgs[name])];
	return sized(stepKeys(plan.redisKey), args);
}

/** STEP's reply; undefined when it is no list (no reply of STEP). */
export function decodeStep(reply: unknown): StepReply | undefined {
	if (!Array.isArray(reply)) return undefined;
	const text = (value: unknown): string => (typeof value === 'string' ? value : '');
	if (Number(reply[0]) === 1) {
		const scalars = new Map<string, number>();
		SCALAR_FIELDS.forEach((field, i) => {
			const value: unknown = reply[4 + i];
			if (value !== null && value !== undefined && Number.isFinite(Number(value))) scalars.set(field, Number(value));
		});
		return { applied: true, inFlight: Number(reply[1]), soonest: reply[2] === '' ? Infinity : Number(reply[2]), sequence: text(reply[3]), scalars };
	}
	const why: unknown = reply[6];
	const lostTo = why === 'state' || why === 'inFlight' || why === 'window' || why === 'counts' ? why : undefined;
	return { applied: false, value: text(reply[1]), inFlight: Number(reply[2]), soonest: text(reply[3]), sequence: text(reply[4]), hash: reply[5], lostTo };
}

export function encodeRead(redisKey: string, nowMs: number): EncodedCall {
	return sized(stepKeys(redisKey), [String(Math.floor(nowMs))]);
}

/** READ's reply: the state's value, its leases in flight and every count; undefined when it is no list. */
export function decodeRead(reply: unknown): { value: string; inFlight: number; hash: unknown } | undefined {
	if (!Array.isArray(reply)) return undefined;
	return { value: typeof reply[0] === 'string' ? reply[0] : '', inFlight: Number(reply[1]) || 0, hash: reply[2] };
}

/** Bytes of a script's reply (strings and numbers, nested lists included). */
export function replyBytes(reply: unknown): number {
	if (Array.isArray(reply)) return reply.reduce<number>((sum, part) => sum + replyBytes(part), 0);
	return reply === null || reply === undefined ? 0 : Buffer.byteLength(String(reply));
}

function sized(keys: string[], args: string[]): EncodedCall {
	return { keys, args, bytes: args.reduce((sum, arg) => sum + Buffer.byteLength(arg), 0) + keys.reduce((sum, k) => sum + k.length, 0) };
}

