/**
 * What one process calls its leases on one API in Redis. The members of the API's sorted set are
 * the process's prefix and a number, so a script carries the leases its steps added as one range
 * (the first number, how many) and those they ended as short numbers ('3,7,12'): a call's size no
 * longer grows by a request's own name (16 characters, about 30 bytes with its end) per step in
 * the batch. The numbers Redis holds are kept here until their leases end.
 */

/** The lease changes of one script: what it adds and ends, by number. */
export interface LeaseChanges {
	/** The first number of the leases added; they are numbered on from it. */
	first: number;
	/** The leases added (request id, end in epoch ms), in the order of their numbers. */
	added: ReadonlyArray<readonly [string, number]>;
	/** The ids of the leases ended that Redis holds under a number of this process. */
	ended: readonly string[];
	/** The numbers to end: those of `ended`, then those a timed-out script may have left. */
	endNumbers: readonly number[];
}

/** Below this many leases held, none is looked at for an end that passed unreported. */
const SWEEP_FLOOR = 1_024;

export class LeaseNames {
	/** Request id to [number, end (epoch ms)], for the leases Redis holds. */
	private readonly held = new Map<string, [number, number]>();
	/** Numbers a timed-out script may have added, or did not end: the next script ends them. */
	private doubtful: number[] = [];
	private next = 0;
	private sweepAbove = SWEEP_FLOOR;

	/** The changes of a script whose steps added `added` (ids, ends) and ended `ended` (ids). */
	changes(added: ReadonlyArray<readonly [string, number]>, ended: readonly string[], nowMs: number): LeaseChanges {
		this.sweep(nowMs);
		const known = ended.filter((id) => this.held.has(id));
		return { first: this.next, added, ended: known, endNumbers: [...known.map((id) => this.held.get(id)![0]), ...this.doubtful] };
	}

	/** The script applied: Redis holds the leases added and no longer those ended. */
	applied(changes: LeaseChanges): void {
		changes.added.forEach(([id, end], i) => this.held.set(id, [changes.first + i, end]));
		for (const id of changes.ended) this.held.delete(id);
		this.next = changes.first + changes.added.length;
		this.doubtful = [];
	}

	/** The script timed out and may still run: its leases are ended by the next one either way. */
	timedOut(changes: LeaseChanges): void {
		const added = changes.added.map((_, i) => changes.first + i);
		const ended = changes.ended.map((id) => this.held.get(id)![0]);
		for (const id of changes.ended) this.held.delete(id);
		this.doubtful.push(...added, ...ended);
		this.next = changes.first + changes.added.length;
	}

	/** Numbers the next script ends for a timed-out one. */
	get pendingEnds(): number {
		return this.doubtful.length;
	}

	/** Nothing of this process is in Redis under these names: they may be forgotten. */
	idle(): boolean {
		return this.held.size === 0 && this.doubtful.length === 0;
	}

	/**
	 * A lease its request never reported (its end passed) is no longer in Redis either: its
	 * number is forgotten, looked for only when many are held, so the work stays O(1) per step.
	 */
	private sweep(nowMs: number): void {
		if (this.held.size <= this.sweepAbove) return;
		for (const [id, [, end]] of this.held) if (end <= nowMs) this.held.delete(id);
		this.sweepAbove = Math.max(SWEEP_FLOOR, 2 * this.held.size);
	}
}
