/**
 * The gate every request of an item passes before it is sent: it asks the API's controller, and
 * waits while the controller says wait (paused, held, a slot, the pace, the budget), as long as the
 * item can still succeed within its deadline. An item leaves without a request only when what it
 * waits for comes too late: after its total deadline, or (a pause the server asked for) beyond
 * Max Server-Requested Delay. Pure: the store, clock, sleeper and random source are injected.
 */
import type { StateStore } from './store';
import type { Runtime } from '../runtime';
import type { GateStop } from '../retry-loop';
import { formatDuration } from '../retry-story';
import { admit, complete, type Admission, type AdmitRequest, type Lease, type Outcome, type TrafficEvent, type TrafficParams, type WaitReason } from './controller';
import type { Waiters } from './waiters';
import { queueOf, wakeOneOfEachQueue } from './wait-queues';
import type { Lane, Ticket } from './fair-line';
import type { SendLimit, SendLogs } from './send-log';
import { TOKEN_WINDOW_MS } from './tokens';

export interface GateContext {
	store: StateStore;
	/** The API's controller key (hashed: it may hold a credential's id). */
	key: string;
	params: TrafficParams;
	runtime: Runtime;
	waiters: Waiters;
	signal?: AbortSignal;
	/**
	 * Longest wait between two looks at the state when nothing in this process will say it changed
	 * (another worker may have changed it and its news got lost: Redis). One request of each queue
	 * looks, for all; the memory store is only changed here.
	 */
	pollMs: number;
	/** Told of every change the controller reports, once (a pause, an outage, a recovery, ...). */
	onEvents?: (events: TrafficEvent[]) => void;
	/** This process's actual sends, by API, for the user's Rate Limit (send-log.ts); absent: not kept. */
	sends?: SendLogs;
	/** A limit of the item's Fair Share Key its actual send keeps too (Rate Limit Per Key: key-gate.ts). */
	keySend?: SendLimit;
	/**
	 * Listens for other processes' news of the key (store.watch); false: the safety poll only. A
	 * Fair Share Key's controller does not listen: a key may be a customer id, and a listener per
	 * key would grow with every customer the process has seen.
	 */
	watchStore?: boolean;
}

export interface GateLimits {
	/** No request may start at or after this (epoch ms); undefined: no deadline. */
	deadlineAt?: number;
	/** The longest server-requested wait the item accepts. */
	maxServerDelayMs: number;
	/**
	 * The wait in line for the API's pace or token budget does not count against the deadline, which
	 * moves back by that wait (docs/decisions.md). Such a line moves at a known speed, and its items
	 * are not failing: a Rate Limit of 1 a second must not fail the 301st of 1,000 items at a
	 * 5-minute deadline, nor a retry that goes to the back of that line. A pause, a hold or the
	 * window count: they are the API's trouble, and their end is not known. The nodes set it;
	 * absent, every wait counts.
	 */
	lineFree?: boolean;
}

/** Waits in line for the API's capacity: they do not count against the deadline (GateLimits.lineFree). */
const LINE_REASONS: ReadonlySet<WaitReason> = new Set(['pace', 'tokens']);

/** How long the request waited, by reason (ms). */
type Waits = Partial<Record<WaitReason, number>>;

export type GateResult =
	/** `lineMs`: the wait in line that did not count against the deadline (GateLimits.lineFree): the deadline moved back by it. */
	| { go: true; probe: boolean; waitedMs: number; waits: Waits; admission: Extract<Admission, { go: true }>; lineMs: number }
	| { go: false; stop: GateStop | 'canceled'; why: string; retryAt?: number; waitedMs: number; waits: Waits; reason?: WaitReason };

/** Stores (shared by processes) whose news of a key this process already listens to. */
const watched = new WeakMap<object, Set<string>>();

/**
 * Another process's report may let a request of this one go: one waiter of each queue looks
 * again (and wakes the next if it goes). One listener per store and key, whatever the requests.
 */
function watchOnce(ctx: GateContext): void {
	const store = ctx.store;
	if (!store.watch || ctx.watchStore === false) return;
	let keys = watched.get(store);
	if (!keys) watched.set(store, (keys = new Set()));
	if (keys.has(ctx.key)) return;
	keys.add(ctx.key);
	const waiters = ctx.waiters;
	const key = ctx.key;
	store.watch(key, () => wakeOneOfEachQueue(waiters, key));
}

/** A wait that ends at a known time lasts that long, plus a little spread so waiters do not return in one wave. */
function spread(ms: number, random: () => number): number {
	const r = random();
	return Math.ceil(Math.min(100, ms * 0.1) * (Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0));
}

function stopFor(blocked: Extract<Admission, { go: false }>, limits: GateLimits, nowMs: number, beyondServerLimit: boolean): { stop: GateStop; why: string } {
	const when = blocked.until !== undefined && Number.isFinite(blocked.until) ? ` (${new Date(Math.min(blocked.until, 8.64e15)).toISOString()})` : '';
	const limit = beyondServerLimit ? `more than Max Server-Requested Delay (${formatDuration(limits.maxServerDelayMs)})` : 'after the total deadline';
	switch (blocked.reason) {
		case 'paused': {
			if (blocked.bucket !== undefined) {
				const wait = blocked.until !== undefined ? ` for ${formatDuration(blocked.until - nowMs)}` : '';
				return { stop: 'retry-after-too-long', why: `The API paused the requests to its rate-limit bucket "${blocked.bucket}"${wait}: its quota is spent until its reset${when}, ${limit}` };
			}
			const by = blocked.pausedBy === 'quota' ? 'its rate-limit quota is spent until its reset' : `it asked to wait (${blocked.pausedBy ?? 'Retry-After'})`;
			const wait = blocked.until !== undefined ? ` ${formatDuration(blocked.until - nowMs)}` : '';
			return { stop: 'retry-after-too-long', why: `The API paused all requests:${wait ? ` for${wait}` : ''} ${by}${when}, ${limit}` };
		}
		case 'held':
			return { stop: 'api-held', why: `The API looks down: requests are held while a probe finds out when it is back; the next probe${when} comes ${limit}` };
		case 'budget':
			return blocked.until === Infinity
				? { stop: 'retry-budget-exhausted', why: 'The retry budget of the API allows no retry (Retry Budget: Retries Allowed and Retries Always Allowed are 0)' }
				: { stop: 'retry-budget-exhausted', why: `The retry budget of the API is spent (retries are over their share of the traffic); room for this retry comes ${limit}` };
		case 'window':
			return { stop: 'deadline-exceeded', why: `The total deadline passed while the request waited for room in the window: the API's requests in flight are at their limit` };
		case 'pace':
			return { stop: 'deadline-exceeded', why: `The total deadline passed while the request waited for its turn at the API's pace` };
		case 'tokens':
			return beyondServerLimit
				? { stop: 'retry-after-too-long', why: `The API's token budget has no room for the request until${when}, ${limit}` }
				: { stop: 'deadline-exceeded', why: `The total deadline passed while the request waited for the API's token budget: its estimated tokens fit again${when}` };
	}
}

/**
 * Waits in the queue of what frees the request, oldest first: when it frees, the first request
 * through wakes the one that has waited longest, and so on. At a pause, retries wait ahead of
 * first requests: the items whose throttle paused the API come back at its end (their own
 * Retry-After, which ends a moment before the pause does, since the pause counts from the report),
 * so they would join behind every new item that arrived during the pause; those new items would
 * fill the window, and their 429s pause the API again before one retry could show that the API
 * takes them (whether a throttle is each request's own, controller.ts ownThrottle). A wait with a
 * known end (a pause, the next probe, the pace's slot), plus a little spread, and the safety poll
 * of a wait on a change are the queue's one timer: one request looks for all. The request's own
 * timer is its deadline.
 */
async function waitInLine(ctx: GateContext, admission: Extract<Admission, { go: false }>, request: AdmitRequest, now: number, deadlineAt: number | undefined, place: Place): Promise<InLine> {
	const { runtime } = ctx;
	const { until } = admission;
	// no spread for the end of a pause: the requests it held go together as the window allows,
	// before an answer can pause it again
	const exact = admission.reason === 'paused';
	const target = until === undefined ? Infinity : exact ? until : until + spread(until - now, () => runtime.random());
	// a quota past its reset waits for the answer that tells the new count: any report may be it
	const change = admission.reason === 'paused' && admission.wake === 'change';
	const queue = queueOf(ctx.key, change ? 'window' : admission.bucket !== undefined ? 'bucket' : admission.reason);
	const lookAt = admission.wake === 'time' ? target : Math.min(target, now + ctx.pollMs);
	// the timers count from the clock as it is now, after the store's round trip: counted from the
	// time the step was asked, each wait would end that round trip late (a probe too, under load)
	const timersFrom = runtime.now();
	const deadlineMs = deadlineAt !== undefined ? Math.max(0, deadlineAt - timersFrom) : Infinity;
	watchOnce(ctx);
	// a retry goes ahead of first requests at a pause's end and in the token budget's line: it had its
	// turn, and the server refused it (the pause, a budget spent before the word of it came)
	const standing = place.standingIn(queue, request, (admission.reason === 'paused' || admission.reason === 'tokens') && request.retry);
	const woken = await ctx.waiters.wait(queue, deadlineMs, (ms, fire) => runtime.startTimer(ms, fire), ctx.signal, { atMs: Math.min(lookAt, deadlineAt ?? Infinity), nowMs: timersFrom }, standing, () => runtime.now());
	return { queue, woken };
}

/** The queue a request last waited in, and whether a wake ended its wait (it then counts as looking: Waiters.looked). */
interface InLine {
	queue: string;
	woken: boolean;
}

/** Where a request stands in an API's lines, as it goes round the gate's loop. */
class Place {
	/** The queue it last waited in: leaving it, it passes the look on to the next in line. */
	queue: string | undefined;
	/** A wake ended its wait: until its look is answered it counts as looking (Waiters.looked). */
	private looking = false;
	/** Its turn in each line it waited in, for a request with a lane (fair-line.ts Ticket). */
	private readonly tickets = new Map<string, Ticket>();

	constructor(private readonly waiters: Waiters) {}

	/**
	 * Where it stands in `queue`'s line: its lane, and its ticket there (kept between its waits, for a
	 * request with a lane; without one it waits in arrival order); `ahead`: a retry at a pause.
	 */
	standingIn(queue: string, request: AdmitRequest, ahead = false): { ahead: boolean; lane?: Lane; ticket?: Ticket } {
		if (request.lane === undefined) return { ahead };
		let ticket = this.tickets.get(queue);
		if (!ticket) this.tickets.set(queue, (ticket = {}));
		return { ahead, lane: request.lane, ticket };
	}

	waited(line: InLine): void {
		this.queue = line.queue;
		this.looking = line.woken;
	}

	/** Its look was answered (or it will not look): it no longer takes a share of the room. */
	looked(): void {
		if (this.looking && this.queue !== undefined) this.waiters.looked(this.queue);
		this.looking = false;
	}

	/** It leaves its line without going: the next in line looks instead. */
	passOn(): void {
		this.looked();
		if (this.queue !== undefined) this.waiters.wake(this.queue);
		this.queue = undefined;
	}
}

/**
 * A slot an answer freed is being handed on to a request that waited for it (reportOutcome), or
 * requests with a lane wait their turn at the pace: a request arriving now takes its place in that
 * line (for a wake, its deadline, or the safety poll) before it asks the store. Asking at once, it
 * would take the slot in the meantime, and the waiter, refused, would go to the back of the line,
 * again and again (and at the pace, a share's turn or an urgent request would count for nothing).
 */
async function waitBehind(ctx: GateContext, reason: 'window' | 'pace', request: AdmitRequest, deadlineAt: number | undefined, place: Place): Promise<InLine> {
	const { runtime } = ctx;
	const now = runtime.now();
	const queue = queueOf(ctx.key, reason);
	const deadlineMs = deadlineAt !== undefined ? Math.max(0, deadlineAt - now) : Infinity;
	const standing = place.standingIn(queue, request);
	const woken = await ctx.waiters.wait(queue, deadlineMs, (ms, fire) => runtime.startTimer(ms, fire), ctx.signal, { atMs: Math.min(now + ctx.pollMs, deadlineAt ?? Infinity), nowMs: now }, standing, () => runtime.now());
	return { queue, woken };
}

/** The line a request arriving now waits in before it asks the store (waitBehind), if any. */
function lineAhead(ctx: GateContext, request: AdmitRequest): 'window' | 'pace' | undefined {
	if (ctx.waiters.handingOn(queueOf(ctx.key, 'window'))) return 'window';
	if (request.lane !== undefined && ctx.waiters.size(queueOf(ctx.key, 'pace')) > 0) return 'pace';
	return undefined;
}

/** Sleeps until `atMs` by the clock as it is now (or the abort: the loop's first check says so). */
async function sleepUntil(ctx: GateContext, atMs: number): Promise<void> {
	try {
		await ctx.runtime.sleep(Math.max(0, atMs - ctx.runtime.now()), ctx.signal);
	} catch {
		// the sleeper rejects only when the signal aborts
	}
}

/** A request was admitted: the waiters its admission may let go look again (the one it waited behind too). */
function wakeAfterAdmission(ctx: GateContext, admission: Extract<Admission, { go: true }>, request: AdmitRequest, inLine: string | undefined): void {
	const { runtime, waiters, key } = ctx;
	// room left: as many waiters as there is room for may go too, together (slow start grows
	// the window one success at a time); one at a time would chain a round trip per request.
	// Those woken already and still looking take their share of it
	const slotQueue = queueOf(key, 'window');
	if (admission.inFlight < admission.window) waiters.wakeForRoom(slotQueue, admission.window - admission.inFlight);
	// a first request raises the budget's limit: a retry waiting for it may fit now
	if (!request.retry) waiters.wake(queueOf(key, 'budget'));
	// the pause is over: the request that has waited longest for it goes next, then the next
	waiters.wake(queueOf(key, 'paused'));
	// the pace's next slot: the longest waiter for it looks then
	const rateQueue = queueOf(key, 'pace');
	if (admission.paceAt !== undefined) waiters.lookAgain(rateQueue, { atMs: admission.paceAt, nowMs: runtime.now() }, (ms, fire) => runtime.startTimer(ms, fire));
	// the next in its line may go too (else it waits again, and its queue's timer with it); in the
	// slot queue, only when none woken is looking already (the room was handed out above)
	if (inLine === slotQueue) waiters.wakeForRoom(slotQueue, 1);
	else if (inLine !== undefined && !(inLine === rateQueue && admission.paceAt !== undefined)) waiters.wake(inLine);
}

/**
 * An admitted request leaves at its time: its reserved pace slot when that is just ahead, and,
 * under the user's Rate Limit (and its Fair Share Key's), never as the (N+1)-th of this process's
 * actual sends within the limit's window (send-log.ts: a late send must not bunch with the next).
 */
async function leaveOnTime(ctx: GateContext, admission: Extract<Admission, { go: true }>, log: WaitLog): Promise<void> {
	const { runtime, params } = ctx;
	const before = runtime.now();
	let waited = admission.sendAt !== undefined;
	if (admission.sendAt !== undefined) await sleepUntil(ctx, admission.sendAt);
	const rps = params.rateLimitRps;
	const windowMs = params.rateLimitWindowMs ?? 1000;
	const own: SendLimit | undefined = rps !== undefined && rps > 0 ? { key: ctx.key, perWindow: (rps * windowMs) / 1000, windowMs } : undefined;
	// nothing is built for a request under no Rate Limit: the healthy path
	if (ctx.sends && (own || ctx.keySend)) {
		const limits = own && ctx.keySend ? [own, ctx.keySend] : [(own ?? ctx.keySend) as SendLimit];
		const at = ctx.sends.claimAll(limits, runtime.now());
		if (at > runtime.now()) {
			waited = true;
			await sleepUntil(ctx, at);
		}
	}
	// a request that went at once has no wait for the pace to tell of
	if (waited) log.add('pace', runtime.now() - before);
}

/**
 * The longest wait for `reason` that the item accepts whatever its deadline: a pause the server
 * asked for, at most Max Server-Requested Delay; the token budget too, or a minute's counts to
 * leave the Token Limit's window (a per-minute budget frees within it): a reset further away is a
 * budget of another kind (a day's), stated by the server, whose wait goes through Backoff Delay and
 * n8n's waiting state rather than an execution held for hours. Other waits: none.
 */
function serverWaitBound(reason: WaitReason, limits: GateLimits): number {
	if (reason === 'paused') return limits.maxServerDelayMs;
	if (reason === 'tokens') return Math.max(limits.maxServerDelayMs, TOKEN_WINDOW_MS);
	return Infinity;
}

/**
 * Why a refused request cannot wait for what it waits for: it never comes, the pause is longer than
 * the item accepts, or it comes after the deadline (`deadlineAt`: the one that bounds this wait).
 */
function cannotWait(admission: Extract<Admission, { go: false }>, limits: GateLimits, now: number, deadlineAt: number | undefined): { stop: GateStop; why: string; retryAt?: number } | undefined {
	const { until } = admission;
	const beyondServerLimit = until !== undefined && until - now > serverWaitBound(admission.reason, limits);
	// a time-bound wait ends at `until`; for a wait on a change, `until` is only the latest it may end
	const tooLate = deadlineAt !== undefined && (admission.wake === 'time' && until !== undefined ? until >= deadlineAt : now >= deadlineAt);
	if (until !== Infinity && !beyondServerLimit && !tooLate) return undefined;
	return { ...stopFor(admission, limits, now, beyondServerLimit), ...(until !== undefined && Number.isFinite(until) ? { retryAt: until } : {}) };
}

/** Waits until the controller lets the request go, or says why it cannot within the item's limits. */
export async function passGate(ctx: GateContext, request: AdmitRequest, limits: GateLimits): Promise<GateResult> {
	const { runtime, signal } = ctx;
	const started = runtime.now();
	const waited = () => Math.max(0, runtime.now() - started);
	const place = new Place(ctx.waiters);
	// the waits by reason, and the deadline as they move it (the line for the pace or tokens)
	const log = new WaitLog(limits);
	const { waits } = log;
	// what it asks with: its deadline (a slot admitted ahead must come before it; none while the line
	// does not count), and the pace slot reserved for it once the pace held it back
	let asking: AdmitRequest = limits.deadlineAt !== undefined && !log.lineFree ? { ...request, deadlineAt: limits.deadlineAt } : request;
	for (;;) {
		if (signal?.aborted) {
			place.passOn();
			return { go: false, stop: 'canceled', why: 'the execution was canceled', waitedMs: waited(), waits };
		}
		const line = place.queue === undefined ? lineAhead(ctx, request) : undefined;
		const now = runtime.now();
		if (line !== undefined) {
			place.waited(await waitBehind(ctx, line, request, log.deadlineDuring(line), place));
			log.add(line, runtime.now() - now);
			continue;
		}
		let admission: Admission;
		try {
			admission = await ctx.store.traffic(ctx.key, now, ctx.params, (data, leases) => admit(data, leases, now, asking, ctx.params));
		} finally {
			place.looked();
		}
		if (admission.events) ctx.onEvents?.(admission.events);
		if (admission.go) {
			wakeAfterAdmission(ctx, admission, request, place.queue);
			await leaveOnTime(ctx, admission, log);
			return { go: true, probe: admission.probe, waitedMs: waited(), waits, admission, lineMs: log.lineMs };
		}
		const deadlineAt = log.deadlineDuring(admission.reason);
		const stop = cannotWait(admission, limits, now, deadlineAt);
		if (stop) {
			place.passOn();
			return { go: false, ...stop, waitedMs: waited(), waits, reason: admission.reason };
		}
		if (admission.paceSlotAt !== undefined) {
			// its own slot: it waits for it alone, exactly (no look of the store until then), and the
			// next in the line it left looks for itself. `until` is the slot, or, for a slot that came
			// while it slept late, the spacing after the request before it
			asking = { ...asking, paceSlotAt: admission.paceSlotAt };
			place.passOn();
			await sleepUntil(ctx, Math.min(admission.until ?? admission.paceSlotAt, deadlineAt ?? Infinity));
		} else {
			place.waited(await waitInLine(ctx, admission, asking, now, deadlineAt, place));
		}
		log.add(admission.reason, runtime.now() - now);
	}
}

/**
 * A request's waits at the gate, by reason, and its deadline: fixed, or (GateLimits.lineFree) moved
 * back by each wait in line for the pace or the token budget.
 */
class WaitLog {
	readonly waits: Waits = {};
	readonly lineFree: boolean;
	/** The wait in line that did not count against the deadline. */
	lineMs = 0;

	constructor(private readonly limits: GateLimits) {
		this.lineFree = limits.lineFree === true && limits.deadlineAt !== undefined;
	}

	/** The deadline that bounds a wait for `reason`: none for a wait in line that does not count. */
	deadlineDuring(reason: WaitReason): number | undefined {
		if (this.limits.deadlineAt === undefined || (this.lineFree && LINE_REASONS.has(reason))) return undefined;
		return this.limits.deadlineAt + this.lineMs;
	}

	add(reason: WaitReason, ms: number): void {
		const waited = Math.max(0, ms);
		this.waits[reason] = (this.waits[reason] ?? 0) + waited;
		if (this.lineFree && LINE_REASONS.has(reason)) this.lineMs += waited;
	}
}

/** After the request: the controller learns from its outcome; one waiter looks again. */
export async function reportOutcome(ctx: GateContext, lease: Lease, outcome: Outcome): Promise<TrafficEvent[]> {
	const now = ctx.runtime.now();
	const events = await ctx.store.traffic(ctx.key, now, ctx.params, (data, leases) => complete(data, leases, now, lease, outcome, ctx.params));
	// a slot is free, or the probe has answered: handed on once the answers read with this one are
	// reported too (a 429 among them pauses the API before the slot's next request goes)
	ctx.waiters.wakeSoon(queueOf(ctx.key, 'window'), (ms, fire) => ctx.runtime.startTimer(ms, fire));
	// an LLM answer returns its estimate or restates the budget: the request waiting longest for tokens looks again
	if (outcome.tokens) ctx.waiters.wake(queueOf(ctx.key, 'tokens'));
	if (events.length > 0) ctx.onEvents?.(events);
	return events;
}
