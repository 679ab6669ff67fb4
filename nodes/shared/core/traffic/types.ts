/**
 * The traffic controller's vocabulary, below everything that uses it: the parameters and the state
 * of an API, a request's admission and its outcome, a step's result, the interface every limit
 * implements (limits/limit.ts has its helpers) and the operator's view. Types only: the controller
 * (controller.ts), its limits (limits/) and the operator (operator.ts) import them, none of them
 * imports another for a type.
 */
import type { HoldChange, HoldData, HoldParams } from './hold-state';
import type { BucketsData } from './buckets';
import type { BudgetData, BudgetParams, BudgetSnapshot } from './budget';
import type { TrafficWaitReason } from '../retry-story';
import type { RateData } from './rate';
import type { Lane } from './fair-line';
import type { TokenDemand, TokenKind, TokenParts } from './token-estimate';
import type { TokenAnswer, TokenData } from './tokens';
import type { WindowData, WindowDecrease, WindowParams } from './window';

export interface TrafficParams {
	/** The retry budget; absent: none. */
	budget?: BudgetParams;
	/** When the API counts as down, and how probes are spaced (breakMs doubling to maxBreakMs); absent: no hold. */
	hold?: HoldParams;
	window: WindowParams;
	/** A fixed pace the user set, requests per second; absent or 0: none. */
	rateLimitRps?: number;
	/** The window the user's Rate Limit counts in (1 s, or 1 min for Rate Limit Per: Minute); absent: 1 s. */
	rateLimitWindowMs?: number;
	/** The user's *Token Limit*: tokens a minute, estimated before each LLM request (tokens.ts); absent: the API's stated budget only. */
	tokenLimitPerMinute?: number;
	/** A request that has not reported for this long is given up (its worker may have died). */
	leaseMs: number;
	/** How the log names the API (its host): kept in the state for the operator's view. */
	label?: string;
	/** The limits, in their order of precedence; absent: the package's (limits/registry.ts). */
	limits?: readonly Limit[];
}

/** A request in flight: [id, expires at, start number, probe (1) or not (0)]. */
export type Lease = [id: string, expiresAt: number, startSeq: number, probe: 0 | 1];

/** The requests in flight at a step's time, as the store keeps them: expired leases left out. */
export interface LeaseView {
	count: number;
	/** The soonest end of a lease in flight (epoch ms); Infinity: none. */
	soonest: number;
}

export interface TrafficData {
	window: WindowData;
	rate: RateData;
	/** Nothing goes before this (epoch ms, 0: not paused). */
	pausedUntil: number;
	/** What paused it, for the retry story: the header, or `quota`. */
	pausedBy?: string;
	/** The pause's end is the node's guess: the next request after this time (epoch ms) probes it. */
	pauseProbeAt?: number;
	/** The interval to the probe after the next (doubling up to PAUSE_PROBE_MAX_MS). */
	pauseProbeMs?: number;
	/** The request out probing the pause (its lease id). */
	pauseProbeId?: string;
	/**
	 * After a pause the server stated, until this time (epoch ms) only retries go: the requests it
	 * throttled come back within the spread their waits were given (delay-plan.ts), and first
	 * requests would otherwise take the window before them; `by`: what stated the pause.
	 */
	retriesFirst?: { until: number; by: string };
	budget?: BudgetData;
	hold?: HoldData;
	/** The rate-limit buckets the API names in its answers, and which routes go to which. */
	buckets?: BucketsData;
	/** The API's token budget (an LLM API's tokens a minute), once an answer stated one or the user set a Token Limit. */
	tokens?: TokenData;
	/** How the log names the API (TrafficParams.label), for the operator's view. */
	label?: string;
	/**
	 * Since the last pause began: retries the server paced that succeeded, and that were throttled
	 * again; first requests that succeeded. Paced retries that succeed while none is throttled again
	 * and no first request gets through say the API's Retry-After is each request's own (ownThrottle).
	 */
	pacedAnswers?: { ok: number; throttled: number; firstOk?: number };
	/** The state of limits the package has no field for (TrafficParams.limits), by name: plain JSON, never changed in place. */
	limits?: Record<string, unknown>;
	/** Last admit or complete. */
	touchedAt: number;
}

export type WaitReason = TrafficWaitReason;

export interface AdmitRequest {
	/** Unique per request: names its lease. */
	id: string;
	/** Not the item's first request (a retry, or the first request of an item back from a loop). */
	retry: boolean;
	/** The wait before this retry was the server's (Retry-After): the budget is not spent on it. */
	paced: boolean;
	/** The item's earlier request failed in this run: while the API is held, one that has not goes as the probe first. */
	failedBefore?: boolean;
	/** The request's route (a hash of its method and path): which bucket it counts against, once an answer said. */
	route?: string;
	/**
	 * Where the item's requests stand among those waiting (its Fair Share Key, whether it is urgent).
	 * A request with a lane waits its turn at the pace in its process's line (gate.ts, waiters.ts),
	 * not on a slot reserved on arrival: reserved slots are first come, first served.
	 */
	lane?: Lane;
	/** The pace slot this request reserved while it waited (Admission's `paceSlotAt`): it goes at it without asking the pace again. */
	paceSlotAt?: number;
	/** No request of this item may start at or after this (epoch ms): one admitted ahead of its slot must be sent before it. */
	deadlineAt?: number;
	/**
	 * What the request weighs, for a limit that weighs requests (default 1). The package's limits
	 * count every request as one: the API's quota, the pace and the retry budget count requests.
	 */
	cost?: number;
	/** An LLM request's demand (token-estimate.ts): what it counts against the API's token budget. Absent: no tokens. */
	tokens?: TokenDemand;
}

export type Admission = (
	| {
			go: true;
			probe: boolean;
			inFlight: number;
			window: number;
			budget?: BudgetSnapshot;
			lease: Lease;
			/** The pace's next slot, when the pace holds the next request back (epoch ms). */
			paceAt?: number;
			/** Send it at this time, not now: its reserved pace slot is just ahead (epoch ms). */
			sendAt?: number;
			/** The tokens the request was counted for against the API's token budget, input and output (its report gives them back). */
			tokens?: TokenParts;
	  }
	| {
			go: false;
			reason: WaitReason;
			/**
			 * When the reason lifts at the latest, if the controller knows (a pause, the next probe, a pace,
			 * a lease given up); Infinity: never (a budget that allows no retry at all).
			 */
			until?: number;
			/** 'time': nothing but time ends this wait; 'change': another request's report or admission may end it sooner. */
			wake: 'time' | 'change';
			/** What paused the API (reason `paused`). */
			pausedBy?: string;
			/** The bucket whose quota is spent (reason `paused`), when the pause is one bucket's. */
			bucket?: string;
			/** Reason `rate`: the slot reserved for this request (= until); ask again with it at that time. */
			paceSlotAt?: number;
	  }
) & {
	/** What changed as time passed (a pause that ended), for the log: once, with the step that saw it. */
	events?: TrafficEvent[];
};

export interface Outcome {
	/** The request got a response under 400. */
	success: boolean;
	/** It says the API is in trouble: a network error, a timeout or a 5xx that is retried. */
	outageFailure: boolean;
	/** Too much at once: a 429, a 503 or a timeout (halves the window). */
	overload: boolean;
	/** The API throttled it: a 429, or a 503 / 529 with a requested wait. */
	throttled: boolean;
	/** The wait the API asked for, on a throttle, and the header it came from; `inferred` when its end is the node's guess. */
	serverWait?: { ms: number; header: string; inferred?: boolean };
	/**
	 * The quota the answer advertised (success or not): its reset as the instant read where the
	 * header was parsed (epoch ms), never re-based on the step's clock.
	 */
	quota?: { remaining: number; resetAt: number };
	/** The bucket the answer named (GitHub's x-ratelimit-resource, Zendesk's endpoint header): the quota is that bucket's. */
	bucket?: string;
	/** Beside a bucket's quota, the API's own that the answer also advertised (Zendesk's account-wide count). */
	apiQuota?: { remaining: number; resetAt: number };
	/** The request's route, as admitted. */
	route?: string;
	/** The item's earlier request failed in this run: a failure again counts toward a hold in the streak only (hold-state.ts). */
	failedBefore?: boolean;
	/** What the request was: an item's first, a retry the server paced (Retry-After), another retry. */
	sent?: 'first' | 'paced' | 'retry';
	/** An LLM request's tokens: what it was counted for, and what its answer stated and used. */
	tokens?: TokenAnswer;
}

export type TrafficEvent =
	| { kind: 'paused'; until: number; by: string; probedFrom?: number; bucket?: string }
	| { kind: 'resumed'; by: string; how: 'probe' | 'time' | 'refilled' | 'hand'; bucket?: string }
	| { kind: 'held'; nextProbeAt: number; change: HoldChange }
	| { kind: 'recovered'; change: HoldChange }
	| { kind: 'window'; decrease: WindowDecrease }
	| { kind: 'rate-learned'; rps: number };

export interface Step<T> {
	data: TrafficData;
	result: T;
	/** False: the step changed nothing (a refusal, but the pace's and those of admit that write once); the store keeps what it holds and writes nothing. */
	changed: boolean;
	/** The lease the step starts (`add`) or ends (`end`, by id). */
	lease?: { add: Lease } | { end: string };
	/** Requests waiting elsewhere (other workers) may go now: a slot freed at the limit, a probe answered, a change of state. */
	frees?: boolean;
	/**
	 * The step's verdict reads none of the counts that requests only add to (the window's growth and
	 * start numbers, the budget's, the hold's and the pace's counts: the counts of state/traffic-counters.ts)
	 * and holds for any number of requests in flight in [min, max]. A store shared by processes may
	 * then add the step's counts to theirs instead of comparing the whole state: other workers'
	 * healthy requests race it no more. `windowAtMost`: a verdict that there is no room holds only
	 * while the window (WindowData.size, which other workers' successes grow) is at most this.
	 * `roomGrows`: the most in flight is for a window of this size; one that other workers grew
	 * (up to the ceiling) has as much more room. Absent: the step needs the exact state.
	 */
	merges?: { inFlight: [min: number, max: number]; windowAtMost?: number; roomGrows?: { size: number; ceiling: number } };
}

export type Refusal = Extract<Admission, { go: false }>;

export type Admitted = Extract<Admission, { go: true }>;

export type Merges = NonNullable<Step<unknown>['merges']>;

/**
 * A limit's verdict before a request: `undefined` it may go as far as this limit is concerned;
 * `probe` it goes as this limit's probe (limits that let probes by are not asked, and the lease is
 * a probe's); `sole-probe` it goes as this limit's probe whatever every limit after it would say;
 * else the refusal: why, until when, and what ends the wait.
 */
export type LimitVerdict = Refusal | 'probe' | 'sole-probe' | undefined;

/** One request's admit step, as the limits see it (one per step). */
export interface Asking {
	data: TrafficData;
	nowMs: number;
	request: AdmitRequest;
	params: TrafficParams;
	leases: LeaseView;
	/** The request's weight (AdmitRequest.cost, default 1). */
	cost: number;
	/** The limit whose probe the request is, once one said so. */
	probeBy: Limit | undefined;
	/** The request goes as a probe past the limits that let probes by (a `probe` verdict); its lease is marked. */
	probe: boolean;
	/** Send it at this time, not now (a limit admitted it just ahead of its time). */
	sendAt: number | undefined;
}

/** One request's report (complete step), as the limits see it (one per step). */
export interface Answer {
	data: TrafficData;
	nowMs: number;
	params: TrafficParams;
	/** The request's lease id, start number and probe mark. */
	id: string;
	startSeq: number;
	probeLease: boolean;
	outcome: Outcome;
	/** Its lease had not expired: it leaves the requests in flight now. */
	live: boolean;
	/** Requests in flight once this one has left. */
	inFlight: number;
	events: TrafficEvent[];
	/** The throttle is the request's own, not the API's (the pause decides, pause.ts): it pauses nothing and teaches no pace. */
	ownThrottle: boolean;
	/** Waiters elsewhere may go now: room after this report, a probe answered, a count asked for answered. */
	frees: boolean;
	/** The report says more than a plain success (a quota, a bucket, a probe's answer): the step needs the exact state. */
	exact: boolean;
}

export interface Limit {
	/** Names it: the key of its state under TrafficData.limits, if it keeps one there. */
	readonly name: string;
	/** A probe of another limit goes past it (the window, the budget: a probe is one request). */
	readonly letsProbesBy?: boolean;
	/** Makes the parts of a step's shallow copy of the state that this limit changes in place its own (the others are shared). */
	copy?(data: TrafficData): void;
	/** Time passed until `nowMs` (mutates the copy): what ends by itself ends, an event when the log must say so. */
	settle?(data: TrafficData, nowMs: number, events: TrafficEvent[]): void;
	verdict(asking: Asking): LimitVerdict;
	/** Its refusal is the request's (mutates; the refusal object is the step's own): true when it wrote the state. */
	refused?(asking: Asking, refusal: Refusal): boolean;
	/** Step.merges of its refusal; absent: the refusal needs the exact state. */
	refusalMerges?(asking: Asking, refusal: Refusal): Merges | undefined;
	/** The request goes (mutates): what this limit counts, and what it adds to the admission. */
	admitted?(asking: Asking, admission: Admitted): void;
	/** Step.merges of an admission as far as this limit reads the state; absent or undefined: exact. */
	admissionMerges?(asking: Asking): Merges | undefined;
	/** The request reported (mutates): what this limit learns of the API, in the list's order. */
	completed?(answer: Answer): void;
	/** Step.merges of a plain success's report (no limit saw news in it); absent: reads no count. */
	completionMerges?(answer: Answer): Merges | undefined;
	/** From this time on this limit's state holds nothing worth keeping. */
	forgetAt?(data: TrafficData, params: TrafficParams): number;
	/** Its part of the operator's view (`inFlight`: as the store counts them). */
	view?(data: TrafficData, nowMs: number, view: TrafficView, inFlight: number): void;
	/** Ended by hand (mutates a copy), where that applies. */
	resume?(data: TrafficData, nowMs: number, what: ResumeRequest, events: TrafficEvent[]): void;
	/** What a worker learned of it alone (`local`), added to the shared state (mutates `data`). */
	adopt?(data: TrafficData, local: TrafficData, nowMs: number): void;
}

/** One API's controller as an n8n item shows it (times as ISO strings). */
export interface TrafficView {
	api: string;
	/** The host (or "its scope"): what the log calls it. */
	label: string | null;
	paused: { until: string; by: string; probeFrom?: string; bucket?: string } | null;
	buckets: Array<{ bucket: string; remaining: number; resetAt: string; spent: boolean }>;
	held: { state: 'open' | 'half-open'; nextProbeAt: string | null; openings: number } | null;
	/** Null: no limit on requests in flight. */
	window: { size: number; inFlight: number; slowStart: boolean } | null;
	pace: { learnedPerSecond: number | null; nextAt: string | null };
	budget: { firstAttempts: number; retries: number; windowMs: number } | null;
	/** The token budget (null: none known): tokens a minute, what is left now and when it is whole again. */
	tokens: { perMinute: number | null; remaining: number | null; resetAt: string | null; model: string | null; kind: TokenKind | null; inFlight: number; charsPerToken: number | null } | null;
	lastRequestAt: string;
}

/** What to end by hand. */
export interface ResumeRequest {
	/** The pause: a server's wait, a guessed one, a spent quota (the API's and its buckets'). */
	pause: boolean;
	/** The outage hold: closed, the requests come back in slow start. */
	hold: boolean;
}
