/**
 * When this process's requests to one API actually leave, for the user's *Rate Limit* of N per W
 * (a second or a minute). The pace (rate.ts, kept in the store for the fleet) spaces requests W/N
 * apart by the time each is admitted to go; a request that leaves late (a timer fired late on an
 * event loop busy with other executions) while the next leaves on time puts N + 1 into one W of
 * the API's clock, and the API answers 429. Measured in a real n8n: 3 x 429 in 1,043 requests at
 * *Rate Limit* 20 against an API that takes 20 a second, the busiest sliding second 23.
 *
 * So the request that would be the (N+1)-th within W of the actual sends waits until the oldest of
 * them is W old (a sliding-window log, as a limiter that counts actual sends keeps). It does not
 * slow the pace: on time, the N-th send before it is exactly W old; only the send right after a
 * late one waits, for that lateness, and the next ones are on time again. Per process, in memory,
 * O(1) per request (a ring of the last N times): the fleet's spacing is the store's pace, this only
 * keeps a process's own late sends from bunching. For a limit of less than 2 per W (N = 1) it
 * keeps the spacing between two sends.
 */

/** The longest log kept: a Rate Limit of more per window is spaced by the pace alone beyond it. */
const MAX_LOGGED = 10_000;

export class SendLog {
	private readonly times: number[] = [];
	/** How many sends the ring holds (the limit's N, whole). */
	private size = 0;
	/** The slot of the ring the next send writes (the oldest once the ring is full). */
	private next = 0;
	/** The latest send logged (epoch ms); -Infinity: none. */
	newest = -Infinity;

	/**
	 * Claims the next send (mutates): when it may leave, now or later, for `perWindow` sends in any
	 * `windowMs`. Its time is logged as that; the caller sends then, not before.
	 */
	claim(nowMs: number, perWindow: number, windowMs: number): number {
		const at = this.nextAt(nowMs, perWindow, windowMs);
		if (this.times.length === this.size) this.times[this.next] = at;
		else this.times.push(at);
		this.next = (this.next + 1) % this.size;
		this.newest = Math.max(this.newest, at);
		return at;
	}

	/** When the next send may leave (now or later), without claiming it. */
	nextAt(nowMs: number, perWindow: number, windowMs: number): number {
		const size = Math.min(MAX_LOGGED, Math.max(1, Math.floor(perWindow + 1e-9)));
		if (size !== this.size) this.resize(size);
		// at most `size` sends in any span of size x spacing (the window, for a whole N per W)
		const spanMs = (size * windowMs) / Math.max(perWindow, 1e-9);
		const full = this.times.length === size;
		return Math.max(nowMs, full ? this.times[this.next] + spanMs : -Infinity);
	}

	/** A new limit (the user changed it): the newest times, oldest first, up to the new size. */
	private resize(size: number): void {
		const kept = [...this.times.slice(this.next), ...this.times.slice(0, this.next)].slice(-size);
		this.times.length = 0;
		this.times.push(...kept);
		this.size = size;
		this.next = kept.length % size;
	}
}

/** One limit a send must keep: `perWindow` sends of the controller `key` in any `windowMs`. */
export interface SendLimit {
	key: string;
	perWindow: number;
	windowMs: number;
}

/**
 * Logs kept at once before the idle ones are dropped: one per API, and one per Fair Share Key
 * under Rate Limit Per Key (a key may be a customer id: thousands over a process's life).
 */
const MAX_LOGS = 1_000;

/** This process's send logs, one per controller key (the same key as the store's) under a Rate Limit. */
export class SendLogs {
	private readonly logs = new Map<string, SendLog>();
	/** Idle logs are dropped when there are more than this; then it is twice the logs kept (O(1) per claim, amortized). */
	private dropAbove = MAX_LOGS;

	of(key: string): SendLog {
		let log = this.logs.get(key);
		if (!log) this.logs.set(key, (log = new SendLog()));
		return log;
	}

	/**
	 * Claims one send under every limit at once: it leaves when the last of them lets it, and is
	 * logged at that time in each (a send counts where it actually left, not earlier).
	 */
	claimAll(limits: readonly SendLimit[], nowMs: number): number {
		if (this.logs.size > this.dropAbove) {
			this.dropIdle(nowMs);
			this.dropAbove = Math.max(MAX_LOGS, 2 * this.logs.size);
		}
		let at = nowMs;
		for (const { key, perWindow, windowMs } of limits) at = Math.max(at, this.of(key).nextAt(nowMs, perWindow, windowMs));
		for (const { key, perWindow, windowMs } of limits) this.of(key).claim(at, perWindow, windowMs);
		return at;
	}

	/** Drops the logs whose last send is over a minute old (a Rate Limit counts a minute at most). */
	private dropIdle(nowMs: number): void {
		for (const [key, log] of this.logs) if (log.newest < nowMs - 60_000) this.logs.delete(key);
	}
}

let processSendLogs: SendLogs | undefined;

/** The send logs of this process, shared by every node and execution in it. */
export function getProcessSendLogs(): SendLogs {
	return (processSendLogs ??= new SendLogs());
}
