/**
 * The order of one queue of waiting requests (waiters.ts): urgent requests first, then those that
 * wait ahead (a retry at a pause), then the rest; among the rest, the shares (an item's Fair Share
 * Key) take turns, so that a share with a thousand requests waiting cannot hold back a share that
 * has two. Requests without a share are one share: they keep their arrival order, as before.
 *
 * Turns are start-time fair queuing (Goyal et al., SFQ): a request's turn is one after its share's
 * last one; the line is ordered by rank, then turn, then arrival. Each share's state is two numbers,
 * kept while it has requests in the line: a share's cost is O(1), a request's is O(log n) to find
 * its place (arrivals of one share go to the end: that is the common case, and the search ends at once).
 *
 * A share that arrives (nothing of it waiting) catches up: its first turn is one after the turn
 * served CATCH_UP_MS ago, not one after the turn served now, so it goes ahead of the shares already
 * busy until it has had as many turns as each of them had in that time, and then takes turns with
 * them. Two tenants of 20 items beside one of 1,000 then finish in about 2x their time alone, where
 * plain turns give 3x (a third of the pace each). It is least attained service with a horizon, as
 * Linux's CFS credits a task that wakes with at most part of a period: a stream of new shares holds
 * an old one back CATCH_UP_MS at most (the turn served stops moving while they catch up, and the
 * horizon reaches it), where unbounded least attained service could hold it back without end.
 */

/** Where an item's requests stand among the requests waiting for the same API. */
export interface Lane {
	/** The item's Fair Share Key (held in this process's memory only: never stored nor logged); undefined: the share of every request without one. */
	share?: string;
	/** Goes ahead of every request that is not urgent (never beyond the API's limits). */
	urgent?: boolean;
}

/**
 * A request's place in one line, kept between its waits there: woken and refused again (another
 * took the room first), it comes back at its turn, not behind its share's later requests.
 */
export interface Ticket {
	turn?: number;
	/** Its arrival, which orders it among the requests of the same turn. */
	seq?: number;
}

/** Ranks: lower goes first. */
const URGENT = 0;
const AHEAD = 1;
const REST = 2;

interface Entry<T> {
	value: T;
	rank: number;
	turn: number;
	seq: number;
	share: string;
}

interface ShareState {
	lastTurn: number;
	waiting: number;
}

const NO_SHARE = '';

/**
 * How far back a share that arrives catches up (docs/decisions.md, "Fair shares"): 10 s of the
 * turns the line served, so a key with a few items beside a busy one is served first, and a key
 * that arrives with a burst goes first at most 10 s before it takes turns.
 */
export const CATCH_UP_MS = 10_000;

/** The turn served from `at` on (the callers' clock). */
interface Served {
	at: number;
	turn: number;
}

export class FairLine<T> {
	private readonly entries: Entry<T>[] = [];
	private readonly shares = new Map<string, ShareState>();
	private served = 0;
	private seq = 0;
	/** When the turn served moved (oldest first; of those at or before the horizon, only the last is kept). */
	private readonly servedLog: Served[] = [];
	/** The first entry of servedLog still needed. */
	private logStart = 0;
	/** The first turn of the share that arrived last. */
	private lastArrival = 0;

	/** `now`: the callers' clock, which times the catch-up; without one, a share that arrives starts at the turn served now. */
	constructor(
		private readonly now?: () => number,
		private readonly catchUpMs = CATCH_UP_MS,
	) {}

	get length(): number {
		return this.entries.length;
	}

	/** The value that goes next, if any. */
	first(): T | undefined {
		return this.entries[0]?.value;
	}

	/** Every value, in the order they go. */
	values(): T[] {
		return this.entries.map((entry) => entry.value);
	}

	/**
	 * Puts `value` in its place; `ahead`: before the rest (a retry at a pause), after the urgent ones.
	 * With a ticket that holds a turn, at that turn (it waited here before); a ticket without one is
	 * given the turn it gets.
	 */
	add(value: T, lane: Lane | undefined, ahead: boolean, ticket?: Ticket): void {
		const share = lane?.share ?? NO_SHARE;
		const rank = lane?.urgent ? URGENT : ahead ? AHEAD : REST;
		let turn = 0;
		if (rank === REST) {
			const known = this.shares.get(share);
			const state = known ?? { lastTurn: 0, waiting: 0 };
			// a share with requests waiting goes on from its last turn (behind the turn served while it catches up)
			turn = ticket?.turn ?? (known ? state.lastTurn : this.catchUpFrom()) + 1;
			state.lastTurn = Math.max(state.lastTurn, turn);
			state.waiting++;
			this.shares.set(share, state);
			if (ticket) ticket.turn = turn;
		}
		const seq = ticket?.seq ?? this.seq++;
		if (ticket) ticket.seq = seq;
		const entry: Entry<T> = { value, rank, turn, seq, share };
		this.entries.splice(this.placeOf(entry), 0, entry);
	}

	/**
	 * Takes `value` out of the line; `served`: it was woken to go (its turn came), not giving up (a
	 * request that gave up from the back of the line moves nobody's turn); false when it was not in it.
	 */
	remove(value: T, served: boolean): boolean {
		const index = this.entries.findIndex((entry) => entry.value === value);
		if (index < 0) return false;
		const [entry] = this.entries.splice(index, 1);
		if (entry.rank !== REST) return true;
		if (served && entry.turn > this.served) {
			this.served = entry.turn;
			this.noteServed();
		}
		const state = this.shares.get(entry.share);
		if (state && --state.waiting === 0) this.shares.delete(entry.share);
		return true;
	}

	/**
	 * The turn a share that arrives now starts after: the turn served CATCH_UP_MS ago (0: the line is
	 * younger), or the first turn of the share that arrived before it when that is later.
	 */
	private catchUpFrom(): number {
		if (this.now === undefined) return this.served;
		const horizon = this.now() - this.catchUpMs;
		const log = this.servedLog;
		// the last entry at or before the horizon (binary search: the log holds CATCH_UP_MS of serves)
		let low = this.logStart;
		let high = log.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (log[mid].at <= horizon) low = mid + 1;
			else high = mid;
		}
		const horizonTurn = low > this.logStart ? log[low - 1].turn : 0;
		// after the share that arrived before it (up to the turn served): newcomers catch up one after
		// another, not all on the same old turns, so a stream of them cannot hold the busy shares back
		// beyond the horizon (they take turns with them once it reaches the turn served)
		const from = Math.max(horizonTurn, Math.min(this.lastArrival, this.served));
		this.lastArrival = from + 1;
		return from;
	}

	/** Notes when the turn served moved, and forgets what is older than the horizon needs (O(1) for each serve, amortized). */
	private noteServed(): void {
		if (this.now === undefined) return;
		const nowMs = this.now();
		const log = this.servedLog;
		log.push({ at: nowMs, turn: this.served });
		// the last entry at or before the horizon is the one catchUpFrom reads; the ones before it are not needed
		while (this.logStart + 1 < log.length && log[this.logStart + 1].at <= nowMs - this.catchUpMs) this.logStart++;
		if (this.logStart > 64 && this.logStart * 2 > log.length) {
			log.splice(0, this.logStart);
			this.logStart = 0;
		}
	}

	/** Binary search for the first entry that goes after `entry` (ties keep arrival order). */
	private placeOf(entry: Entry<T>): number {
		const entries = this.entries;
		const last = entries[entries.length - 1];
		if (last === undefined || !goesBefore(entry, last)) return entries.length;
		let low = 0;
		let high = entries.length - 1;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (goesBefore(entry, entries[mid])) high = mid;
			else low = mid + 1;
		}
		return low;
	}
}

function goesBefore<T>(a: Entry<T>, b: Entry<T>): boolean {
	if (a.rank !== b.rank) return a.rank < b.rank;
	if (a.turn !== b.turn) return a.turn < b.turn;
	return a.seq < b.seq;
}

/**
 * The order a node starts its items in, by their lanes: the urgent ones first, then the shares in
 * turn (one item of each share, in the order the shares first appear, then the next of each), each
 * share's items in input order. Max Items in Flight starts items in this order, so that a share
 * listed last is not left behind a thousand items of the first. No lanes: input order (undefined).
 */
export function startOrder(lanes: ReadonlyArray<Lane | undefined>): number[] | undefined {
	if (!lanes.some((lane) => lane !== undefined)) return undefined;
	const urgent: number[] = [];
	const shares = new Map<string, number[]>();
	lanes.forEach((lane, index) => {
		if (lane?.urgent) return void urgent.push(index);
		const share = lane?.share ?? NO_SHARE;
		const items = shares.get(share);
		if (items) items.push(index);
		else shares.set(share, [index]);
	});
	const order = urgent;
	// the shares still with items: each round drops those it empties (O(n) in all)
	let queues = [...shares.values()];
	for (let round = 0; queues.length > 0; round++) {
		for (const items of queues) order.push(items[round]);
		queues = queues.filter((items) => items.length > round + 1);
	}
	return order;
}
