/**
 * The limits of one Fair Share Key, besides the API's (issue 39): *Rate Limit Per Key* and *Max
 * Items in Flight Per Key*, for an API that limits each of the user's customers (an account's own
 * quota at a multi-tenant service) or to keep one tenant within its share. Each key of an API has a
 * controller of its own, in the same store as the API's: the package's fixed window (the key's
 * requests in flight) and its pace (the key's rate), nothing else. A request passes its key's
 * controller first, then the API's; refused by the API, it gives the key's room back. The key's
 * controller learns nothing from answers (the API's does): it holds the user's numbers, no more.
 *
 * O(1) per request: one more step at the store to enter and one to report, only for the items of a
 * node that sets a key limit; a key's state is its pace's and window's numbers, forgotten as an
 * API's is once idle. Sends are spaced by the key's pace for the fleet, and by this process's log
 * of its actual sends (send-log.ts), counted when they leave the API's gate, not before.
 */
import { pace } from './limits/pace';
import { window } from './limits/window';
import { passGate, reportOutcome, type GateContext, type GateLimits, type GateResult } from './gate';
import type { SendLimit } from './send-log';
import type { AdmitRequest, Lease, Limit, Outcome, TrafficParams } from './types';

/** The user's limits of each Fair Share Key of an API. */
export interface KeyLimits {
	/** Requests a second each key may send (Rate Limit Per Key); absent: none. */
	rateLimitRps?: number;
	/** The window that rate counts in (1 s, or 1 min for Rate Limit Per: Minute); absent: 1 s. */
	rateLimitWindowMs?: number;
	/** Requests of each key in flight at once (Max Items in Flight Per Key); absent: none. */
	maxInFlight?: number;
}

/** A key's gate: its controller's context, and the limit its actual sends keep in this process. */
interface KeyGate {
	ctx: GateContext;
	send?: SendLimit;
}

/**
 * What a key's controller is told of its request, whatever the API answered: done. Its limits learn
 * nothing from answers (the API's controller learns them), and a plain success is the report a
 * store may merge without the exact state (a Redis step with no lost compare-and-set).
 */
const DONE: Outcome = Object.freeze({ success: true, outageFailure: false, overload: false, throttled: false });

/** The key's controller: a fixed window of maxInFlight, the pace of rateLimitRps; only those it has. */
export function keyParams(limits: KeyLimits, leaseMs: number): TrafficParams {
	const list: Limit[] = [];
	if (limits.maxInFlight !== undefined) list.push(window);
	if (limits.rateLimitRps !== undefined) list.push(pace);
	return {
		window: { ceiling: limits.maxInFlight ?? Number.MAX_SAFE_INTEGER, mode: 'fixed' },
		leaseMs,
		...(limits.rateLimitRps !== undefined ? { rateLimitRps: limits.rateLimitRps } : {}),
		...(limits.rateLimitWindowMs !== undefined ? { rateLimitWindowMs: limits.rateLimitWindowMs } : {}),
		limits: list,
	};
}

/**
 * The gate of the key whose controller is `key` (the caller names it: a hash of the API's key and
 * the Fair Share Key's value, never the value) beside the API's gate `api`. It listens to no news
 * of other processes (GateContext.watchStore): room another worker frees is seen at the safety poll.
 */
export function keyGateOf(api: GateContext, key: string, limits: KeyLimits): KeyGate {
	const params = keyParams(limits, api.params.leaseMs);
	const ctx: GateContext = { store: api.store, key, params, runtime: api.runtime, waiters: api.waiters, pollMs: api.pollMs, watchStore: false, ...(api.signal ? { signal: api.signal } : {}) };
	if (limits.rateLimitRps === undefined) return { ctx };
	const windowMs = limits.rateLimitWindowMs ?? 1000;
	return { ctx, send: { key, perWindow: (limits.rateLimitRps * windowMs) / 1000, windowMs } };
}

type Waits = GateResult['waits'];

function addWaits(a: Waits, b: Waits): Waits {
	const sum: Waits = { ...a };
	for (const [reason, ms] of Object.entries(b) as Array<[keyof Waits, number]>) sum[reason] = (sum[reason] ?? 0) + ms;
	return sum;
}

/** A stop at the key's controller, in the words of the key's limits (a deadline; canceled as it is). */
function keyStop(result: Extract<GateResult, { go: false }>): Extract<GateResult, { go: false }> {
	if (result.stop !== 'deadline-exceeded') return result;
	if (result.reason === 'window') return { ...result, why: "The total deadline passed while the request waited for room among its Fair Share Key's requests in flight (Max Items in Flight Per Key)" };
	if (result.reason === 'pace') return { ...result, why: "The total deadline passed while the request waited for its turn at its Fair Share Key's pace (Rate Limit Per Key)" };
	return result;
}

/**
 * Passes the key's gate, then the API's (without a key gate, the API's only). The waits add up, and
 * the wait in line at the key's pace moves the deadline back as the API's does. Admitted, the
 * request holds `keyLease` until reportKey.
 */
export async function passKeyThenApi(api: GateContext, key: KeyGate | undefined, request: AdmitRequest, limits: GateLimits): Promise<{ result: GateResult; keyLease?: Lease }> {
	if (!key) return { result: await passGate(api, request, limits) };
	const keyRequest: AdmitRequest = { id: request.id, retry: request.retry, paced: request.paced, ...(request.lane ? { lane: request.lane } : {}) };
	const entered = await passGate(key.ctx, keyRequest, limits);
	if (!entered.go) return { result: keyStop(entered) };
	const moved = limits.deadlineAt !== undefined && entered.lineMs > 0 ? { ...limits, deadlineAt: limits.deadlineAt + entered.lineMs } : limits;
	// refused by the API, or its store failed: the key's room is given back at once, not when its lease ends
	let admitted = false;
	try {
		const result = await passGate(key.send ? { ...api, keySend: key.send } : api, request, moved);
		const waits = addWaits(entered.waits, result.waits);
		const waitedMs = entered.waitedMs + result.waitedMs;
		if (!result.go) return { result: { ...result, waits, waitedMs } };
		admitted = true;
		return { result: { ...result, waits, waitedMs, lineMs: entered.lineMs + result.lineMs }, keyLease: entered.admission.lease };
	} finally {
		if (!admitted) await reportKey(key, entered.admission.lease);
	}
}

/** The request is over (answered, or never sent): its room at the key's controller is free again. */
export async function reportKey(key: KeyGate, lease: Lease): Promise<void> {
	await reportOutcome(key.ctx, lease, DONE);
}
