/**
 * What every limit of the traffic controller implements (controller.ts runs them in a list, in
 * their order of precedence: the first refusal is the request's reason to wait). A limit is one
 * module: its verdict before a request, what it records when the request goes and when it
 * reports, what time passing does to its state and when the state may be forgotten, its part of
 * the operator's view, how it is ended by hand and what a worker learned of it alone.
 *
 * A limit's state is part of the API's TrafficData (plain JSON, kept by a store): its own field, or,
 * for a limit the package does not ship, `TrafficData.limits[name]`. Every hook is optional but
 * the verdict, and runs on the step's copy of the state (see `copy`), so it may mutate it.
 *
 * Step.merges: a limit says what its verdict reads (refusalMerges, admissionMerges, completed's
 * `news`). Without a word it reads counts that other workers add to: the step needs the exact
 * state (the safe default for a limit that reads its own state).
 */
import type { Admission, AdmitRequest, LeaseView, Outcome, Step, TrafficData, TrafficEvent, TrafficParams } from '../controller';
import type { ResumeRequest, TrafficView } from '../operator';

export type Refusal = Extract<Admission, { go: false }>;
export type Admitted = Extract<Admission, { go: true }>;
export type Merges = NonNullable<Step<unknown>['merges']>;

/** A verdict that holds whatever the requests in flight. */
export const ANY_IN_FLIGHT: Merges = Object.freeze({ inFlight: Object.freeze([0, Infinity]) as [number, number] });

/** A time as the operator's view shows it (far future clamped to the latest Date). */
export const isoTime = (ms: number) => new Date(Math.min(ms, 8.64e15)).toISOString();

/** For a limit whose verdict reads no count (only the versioned rest of the state). */
export const readsNoCount = (): Merges => ANY_IN_FLIGHT;

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

/**
 * Both verdicts at once. Undefined (the exact state) wins, and a verdict that holds whatever is in
 * flight leaves the other's; two limits that both bound the requests in flight need the exact
 * state (none of the package's do).
 */
export function narrowMerges(a: Merges | undefined, b: Merges | undefined): Merges | undefined {
	if (a === ANY_IN_FLIGHT) return b;
	if (b === ANY_IN_FLIGHT) return a;
	return undefined;
}
