/**
 * The compare-and-set planning of the Redis store: a batch's steps run, in order, on what this
 * process last saw of the API (Seen), and become the plan of one STEP script (state/step-codec.ts)
 * and what this process sees once it applies. A merge when every step says its verdict reads no
 * count (Step.merges) and the steps only added to counts; else an exact write of what changed.
 * Pure: it sends nothing (redis-store.ts sends the plan and hands back what Redis answered).
 */
import { trafficForgetAt, type LeaseView, type TrafficData, type TrafficParams } from '../core/traffic/controller';
import type { TrafficStep } from '../core/traffic/store';
import type { LeaseChanges, LeaseNames } from './lease-names';
import { counterChanges, countersFromHash, joinTraffic, splitTraffic, withScalarCounts, type Counters } from './traffic-counters';
import type { StepPlan, StepReply } from './step-codec';

/** What this process last saw of an API: its version, state and leases. */
export interface Seen {
	version: string;
	/** The state without its counts, canonical JSON ('' none). */
	base: string;
	data: TrafficData | undefined;
	counters: Counters;
	/**
	 * The counts' sequence in Redis when `counters` were all of them; STALE once another worker
	 * added to them since (an exact write then fetches them first).
	 */
	sequence: string;
	count: number;
	soonest: number;
}

const STALE = '\u0000stale';
const NO_COUNTERS: Counters = new Map();

/** Nothing seen yet: an API Redis does not hold costs no extra round trip. */
export const NOTHING: Seen = Object.freeze({ version: '', base: '', data: undefined, counters: NO_COUNTERS, sequence: '', count: 0, soonest: Infinity });
/** After a timeout: what Redis holds is unknown, the next script fetches it. */
export const UNKNOWN: Seen = Object.freeze({ version: '\u0000unknown', base: '', data: undefined, counters: NO_COUNTERS, sequence: STALE, count: -1, soonest: Infinity });

/** A step of the controller as a batch hands it to the planner. */
export interface QueuedStep {
	nowMs: number;
	params: TrafficParams;
	step: TrafficStep<unknown>;
}

/** One script's arguments, and what the steps answered if it applies. */
interface Plan {
	step: StepPlan;
	results: unknown[];
	/** What this process sees once it applies (a merge: before the counts Redis hands back). */
	seen: Seen;
	merge: boolean;
	/** The counts' sequence the script leaves when no other worker added to them meanwhile. */
	nextSequence: string;
	leases: LeaseChanges;
}

/** A state a key holds ("<version>\n<json>") and its counts, or NOTHING for none (or something that is no state of ours). */
export function parseSeen(raw: string, count: number, soonest: string, sequence: string, hash: unknown): Seen {
	const newline = raw.indexOf('\n');
	const counters = Array.isArray(hash) ? countersFromHash(hash) : NO_COUNTERS;
	const rest = { counters, sequence, count, soonest: soonest === '' ? Infinity : Number(soonest) };
	if (raw === '' || newline < 0) return { ...NOTHING, ...rest, version: raw === '' ? '' : raw };
	const version = raw.slice(0, newline);
	try {
		const data = joinTraffic(JSON.parse(raw.slice(newline + 1)), counters);
		return { version, base: data ? raw.slice(newline + 1) : '', data, ...rest };
	} catch {
		return { version, base: '', data: undefined, ...rest };
	}
}

/** What this process sees once a script applied its plan: the leases Redis counts, and after a merge the window's counts others added to. */
export function applied(plan: Plan, reply: Extract<StepReply, { applied: true }>): Seen {
	const leases = { count: reply.inFlight, soonest: reply.soonest };
	const sequence = reply.sequence;
	if (!plan.merge) return { ...plan.seen, ...leases, sequence };
	// nobody else added to the counts since this process last had them all: it still has them all
	const complete = sequence === plan.nextSequence;
	const data = plan.seen.data;
	if (!data) return { ...plan.seen, ...leases, sequence: complete ? sequence : STALE };
	const counters = new Map([...plan.seen.counters, ...reply.scalars]);
	return { ...plan.seen, ...leases, data: { ...data, ...withScalarCounts(data, counters) }, counters, sequence: complete ? sequence : STALE };
}

/** What a batch's steps did, run in order on what this process last saw. */
interface Ran {
	results: unknown[];
	/** The state after them; params: those of the last step that changed it (none: nothing changed). */
	data: TrafficData | undefined;
	params: TrafficParams | undefined;
	count: number;
	soonest: number;
	nowMs: number;
	frees: boolean;
	/** The leases added (id, end) and ended (id), and the latest end of one added. */
	added: Array<[string, number]>;
	ended: string[];
	leasesUntil: number;
	/**
	 * Every step merges (Step.merges), for any leases in flight in [fewest, most] and a window of at
	 * most windowAtMost; `most` is for a window of roomSize, and grows with it up to roomCeiling.
	 */
	mergeable: boolean;
	fewest: number;
	most: number;
	windowAtMost: number;
	roomSize: number;
	roomCeiling: number;
	/** No step has a most in flight that a grown window leaves as it is (a fixed window, one at its ceiling). */
	roomGrows: boolean;
}

function runSteps(seen: Seen, batch: readonly QueuedStep[]): Ran {
	const ran: Ran = { results: [], data: seen.data, params: undefined, count: seen.count, soonest: seen.soonest, nowMs: -Infinity, frees: false, added: [], ended: [], leasesUntil: -Infinity, mergeable: seen.version !== '', fewest: -Infinity, most: Infinity, windowAtMost: Infinity, roomSize: -Infinity, roomCeiling: Infinity, roomGrows: true };
	for (const pending of batch) {
		ran.nowMs = Math.max(ran.nowMs, pending.nowMs);
		const view: LeaseView = { count: Math.max(0, ran.count), soonest: ran.soonest };
		const step = pending.step(ran.data, view);
		ran.results.push(step.result);
		if (step.merges) {
			// the step saw the leases seen plus those the steps before it added or ended
			ran.fewest = Math.max(ran.fewest, step.merges.inFlight[0] - (view.count - seen.count));
			ran.most = Math.min(ran.most, step.merges.inFlight[1] - (view.count - seen.count));
			ran.windowAtMost = Math.min(ran.windowAtMost, step.merges.windowAtMost ?? Infinity);
			// the largest window a step's room was for and the smallest ceiling: the growth counted is never more than a step's
			if (step.merges.roomGrows) {
				ran.roomSize = Math.max(ran.roomSize, step.merges.roomGrows.size);
				ran.roomCeiling = Math.min(ran.roomCeiling, step.merges.roomGrows.ceiling);
			} else if (Number.isFinite(step.merges.inFlight[1])) ran.roomGrows = false;
		} else ran.mergeable = false;
		if (step.changed) {
			ran.data = step.data;
			ran.params = pending.params;
		}
		if (step.lease && 'add' in step.lease) {
			const [id, end] = step.lease.add;
			ran.added.push([id, end]);
			ran.count++;
			ran.soonest = Math.min(ran.soonest, end);
			ran.leasesUntil = Math.max(ran.leasesUntil, end);
		} else if (step.lease) {
			ran.ended.push(step.lease.end);
			ran.count = Math.max(0, ran.count - 1);
		}
		if (step.frees) ran.frees = true;
	}
	ran.mergeable &&= ran.fewest <= seen.count && seen.count <= ran.most;
	return ran;
}

/** Plans the scripts of one store: its versions are named by its prefix and a number of its own. */
export class StepPlanner {
	private versions = 0;

	constructor(
		/** This process's prefix (of versions, lease names and its pub/sub messages). */
		private readonly prefix: string,
		private readonly ttlGraceMs: number,
	) {}

	/**
	 * Runs the batch's steps, in order, on what this process last saw: the script that applies them.
	 * A merge when every step says its verdict reads no count (Step.merges) and the steps only added
	 * to counts: then other workers' healthy requests, which only add to counts too, race it no more.
	 */
	plan(seen: Seen, names: LeaseNames, batch: readonly QueuedStep[], redisKey: string): Plan {
		const ran = runSteps(seen, batch);
		const { data, count, soonest, nowMs, results } = ran;
		const base = Math.floor(nowMs);
		const leases = names.changes(ran.added, ran.ended, nowMs);
		const next = { ...seen, data, count, soonest };
		// a window others grew raises the most in flight, when every step with a most said so (refusals have none)
		const room = ran.roomGrows && Number.isFinite(ran.roomSize) ? { size: ran.roomSize, ceiling: ran.roomCeiling } : undefined;
		// the check (a merge's or an exact write's), what to write, the count and lease changes
		const stepPlan = (merge: boolean, write: StepPlan['write'], ttlMs: number, counterOps: StepPlan['counterOps']): StepPlan => ({
			redisKey,
			check: merge ? { merge, version: seen.version, fewest: Math.max(0, ran.fewest), most: ran.most, windowAtMost: ran.windowAtMost, room } : { merge, version: seen.version, sequence: seen.sequence, inFlight: seen.count },
			nowMs: base,
			write,
			ttlMs: Math.max(1, ttlMs),
			leaseTtlMs: Math.max(1, Math.ceil(ran.leasesUntil - nowMs + this.ttlGraceMs)),
			counterOps,
			leases: { prefix: this.prefix, first: leases.first, added: leases.added.length, endsInMs: leases.added.length > 0 ? Math.ceil(ran.leasesUntil - base) : 0, ended: leases.endNumbers },
			publish: ran.frees,
			from: this.prefix,
		});
		if (!ran.params || !data) {
			// nothing to write: the check that the verdicts still hold, and the leases
			return { step: stepPlan(ran.mergeable, undefined, 1, []), results, seen: next, merge: ran.mergeable, nextSequence: seen.sequence, leases };
		}
		const split = splitTraffic(data);
		const changes = counterChanges(seen.counters, split.counters);
		const ttlMs = Math.ceil(trafficForgetAt(data, ran.params) - nowMs + this.ttlGraceMs);
		const merge = ran.mergeable && split.base === seen.base && changes.merge !== undefined && ttlMs > 0;
		const counterOps = (merge ? changes.merge : changes.exact)!;
		const nextSequence = counterOps.length === 0 ? seen.sequence : /^\d+$/.test(seen.sequence) ? String(Number(seen.sequence) + 1) : seen.sequence === '' ? '1' : STALE;
		if (merge) {
			return { step: stepPlan(true, undefined, ttlMs, counterOps), results, seen: { ...next, counters: split.counters }, merge, nextSequence, leases };
		}
		const rewrite = split.base !== seen.base;
		const version = rewrite ? `${this.prefix}.${(++this.versions).toString(36)}` : seen.version;
		const write = ttlMs <= 0 ? 'delete' : rewrite ? { value: `${version}\n${split.base}` } : undefined;
		const after: Seen = write === 'delete' ? { ...NOTHING, count, soonest } : { ...next, version, base: split.base, counters: split.counters };
		return { step: stepPlan(false, write, ttlMs, counterOps), results, seen: after, merge, nextSequence: write === 'delete' ? '' : nextSequence, leases };
	}
}
