/**
 * The retry loop's gate for one item of any node that sends attempts to an API: each attempt passes
 * the API's traffic controller before it is sent (nodes/shared/core/traffic/gate.ts) and reports
 * what its result says of the API after. What a result says is the node's to read (an HTTP answer's
 * status and headers, say): the node passes that reading in. The controller's events go to the
 * process's event bus, once, from the request that caused them.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { AttemptFailure } from '../../core/classify';
import type { AttemptGate, AttemptResult, GateNote } from '../../core/retry-loop';
import type { Runtime } from '../../core/runtime';
import type { Outcome, TrafficEvent, TrafficParams } from '../../core/traffic/controller';
import type { TrafficEventSource } from '../../core/traffic/events';
import { reportOutcome, type GateContext, type GateResult } from '../../core/traffic/gate';
import { keyGateOf, passKeyThenApi, reportKey, type KeyLimits } from '../../core/traffic/key-gate';
import { newLeaseId } from '../../core/traffic/lease-id';
import type { StateStore } from '../../core/traffic/store';
import type { Lane } from '../../core/traffic/fair-line';
import { NO_TOKENS, type TokenDemand } from '../../core/traffic/token-estimate';
import { getProcessWaiters } from '../../core/traffic/waiters';
import { getProcessSendLogs } from '../../core/traffic/send-log';
import { keyShareOf, type ApiName } from './api-name';
import { getProcessTrafficEvents } from './traffic-events';
import { countTraffic } from './traffic-metrics';
import { eventCounts, gateCounts, resultCounts } from '../../core/traffic/traffic-counts';
import { logTrafficEvent } from './traffic-log';

/**
 * The safety poll of a Redis-kept controller: another worker's report wakes this one's waiting
 * requests by pub/sub; if that news is lost, one waiting request per API looks again this often.
 */
const REDIS_POLL_MS = 2_000;
/** The memory store changes only in this process, which wakes its waiters: this is a safety net. */
const MEMORY_POLL_MS = 5_000;

/** What a node reads of its attempts' results for the API's controller. */
interface AttemptReading<T> {
	/** What one attempt's result tells the API's controller (`nowMs`: the clock as it is read). */
	outcomeOf(result: AttemptResult<T>, nowMs: number): Outcome;
	/** The previous attempt was throttled and told when to come back: the retry is the server's pace. */
	wasPaced(last: AttemptFailure | undefined): boolean;
}

interface TrafficGateOptions<T> {
	/** The node's display name, for the log lines of its events. */
	nodeType: string;
	/** The item's first attempt is a retry too (it came back through a Backoff Delay loop). */
	loopRetry: boolean;
	/** The attempt's route (hashed), which names its bucket once an answer said; none: the API's only. */
	route?: string;
	maxServerDelayMs: number;
	reading: AttemptReading<T>;
	/** The attempt is an LLM request: what it asks of the API's token budget (token-estimate.ts). */
	tokens?: TokenDemand;
}

/**
 * What the attempt's record says of the API's traffic controller: only what explains a wait
 * before it (how long and why; the requests in flight for room in the window, the budget's counters for the
 * budget) or that it was the probe after an outage. The controller's own step (a store's round
 * trip, no reason) is no wait a person needs to read of.
 */
function noteOf(result: GateResult): GateNote {
	const admission = result.go ? result.admission : undefined;
	const waited = Object.keys(result.waits).length > 0;
	const probe = result.go && result.probe;
	if (!waited && !probe) return {};
	const slots = result.waits.window !== undefined && admission ? { inFlight: admission.inFlight, window: admission.window } : {};
	const note: GateNote = { traffic: { waitedMs: result.waitedMs, ...(waited ? { waitedFor: result.waits } : {}), ...(probe ? { probe: true as const } : {}), ...slots } };
	if (result.waits.budget !== undefined && admission?.budget) {
		const b = admission.budget;
		note.budget = { firstAttempts: b.firstAttempts, retries: b.retries, available: b.available, windowMs: b.windowMs };
	}
	return note;
}

function gateContext(ctx: IExecuteFunctions, store: StateStore, api: ApiName & { params: TrafficParams }, runtime: Runtime, signal: AbortSignal | undefined, nodeType: string): GateContext {
	// the events' source is made only when there are events: a healthy request makes none
	const publish = (reported: TrafficEvent[]) => {
		const source: TrafficEventSource = { key: api.key, label: api.label, node: ctx.getNode().name, nodeType };
		getProcessTrafficEvents().publish(source, reported, runtime.now(), (record) => logTrafficEvent(ctx.logger, record));
		countTraffic(store, api, eventCounts(reported));
	};
	return {
		store,
		key: api.key,
		params: api.params,
		runtime,
		waiters: getProcessWaiters(),
		sends: getProcessSendLogs(),
		...(signal ? { signal } : {}),
		pollMs: store.kind === 'redis' ? REDIS_POLL_MS : MEMORY_POLL_MS,
		onEvents: publish,
	};
}

/** An API's controller as a node names it: its key and params, the item's lane, its Fair Share Key's own limits. */
export type GatedApi = ApiName & { params: TrafficParams; lane?: Lane; keyLimits?: KeyLimits };

export function createTrafficGate<T>(ctx: IExecuteFunctions, store: StateStore, api: GatedApi, runtime: Runtime, signal: AbortSignal | undefined, options: TrafficGateOptions<T>): AttemptGate<T> {
	const gate = gateContext(ctx, store, api, runtime, signal, options.nodeType);
	// items without a value share one key's limits, as they share one turn in line
	const keyGate = api.keyLimits ? keyGateOf(gate, keyShareOf(api.key, api.lane?.share ?? ''), api.keyLimits) : undefined;
	const { reading } = options;
	return {
		async enter(attempt, last, deadlineAt) {
			const id = newLeaseId();
			// asking again after a "not yet" is a poll, not a retry: it spends no retry budget, and its item has not failed
			const failedBefore = attempt > 1 && last?.notYet !== true;
			const retry = failedBefore || options.loopRetry;
			const paced = reading.wasPaced(last);
			// the line for the pace and tokens moves at a known speed: it counts against no deadline
			const limits = { ...(deadlineAt !== undefined ? { deadlineAt } : {}), maxServerDelayMs: options.maxServerDelayMs, lineFree: true };
			const { result, keyLease } = await passKeyThenApi(gate, keyGate, { id, retry, paced, failedBefore, ...(options.route !== undefined ? { route: options.route } : {}), ...(api.lane ? { lane: api.lane } : {}), ...(options.tokens ? { tokens: options.tokens } : {}) }, limits);
			countTraffic(store, api, gateCounts({ attempt, last, loopRetry: options.loopRetry }, result));
			const note = noteOf(result);
			if (!result.go) return { go: false, stop: result.stop, why: result.why, ...(result.retryAt !== undefined ? { retryAt: result.retryAt } : {}), note };
			const { lease } = result.admission;
			const counted = result.admission.tokens;
			return {
				go: true,
				note,
				lineMs: result.lineMs,
				done: async (attemptResult) => {
					const read = reading.outcomeOf(attemptResult, runtime.now());
					// the tokens it was counted for go back with what the answer stated and used
					const outcome = counted !== undefined || read.tokens ? { ...read, tokens: { ...read.tokens, counted: counted ?? NO_TOKENS, ...(options.tokens ? { chars: options.tokens.chars, ...(options.tokens.model !== undefined ? { model: options.tokens.model } : {}) } : {}) } } : read;
					countTraffic(store, api, resultCounts(attemptResult));
					try {
						await reportOutcome(gate, lease, { ...outcome, ...(failedBefore ? { failedBefore } : {}), sent: !retry ? 'first' : paced ? 'paced' : 'retry' });
					} finally {
						if (keyGate && keyLease) await reportKey(keyGate, keyLease);
					}
				},
			};
		},
	};
}
