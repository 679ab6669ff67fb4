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
import type { Merges } from '../types';


/** A verdict that holds whatever the requests in flight. */
export const ANY_IN_FLIGHT: Merges = Object.freeze({ inFlight: Object.freeze([0, Infinity]) as [number, number] });

/** A time as the operator's view and the log show it: a server's absurd wait stays a valid date (clamped to the latest Date). */
export const isoTime = (ms: number) => new Date(Math.min(ms, 8.64e15)).toISOString();

/** For a limit whose verdict reads no count (only the versioned rest of the state). */
export const readsNoCount = (): Merges => ANY_IN_FLIGHT;

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
