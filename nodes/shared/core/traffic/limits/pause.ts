/**
 * The pause: the API asked everyone to wait (a 429 or 503 with Retry-After or a reset header), and
 * nothing goes until then. A wait the node only infers (a daily limit without a reset time) is
 * probed instead: one request after a minute, then at doubling intervals up to 15 minutes, and the
 * first answer that is not a throttle ends the pause. After a pause the server stated, the retries
 * it held back go first (retriesFirst). A throttle that is a request's own, not the API's
 * (ownThrottle), or its token budget's (tokenThrottle), pauses nothing.
 */
import { serverDelaySpreadMs } from '../../delay-plan';
import { spentBucketAnswer } from './buckets';
import { isTokenResetHeader } from '../token-headers';
import { isoTime as iso, readsNoCount } from './limit';
import type { Limit, Outcome, Refusal, TrafficData, TrafficEvent } from '../types';

/** A pause whose end the node infers is first probed after this long, then at doubling intervals up to the max. */
const PAUSE_PROBE_FIRST_MS = 60_000;
const PAUSE_PROBE_MAX_MS = 15 * 60_000;

function endPause(data: TrafficData): void {
	data.pausedUntil = 0;
	delete data.pausedBy;
	delete data.pauseProbeAt;
	delete data.pauseProbeMs;
	delete data.pauseProbeId;
}

/**
 * A paused API: wait, or, when the pause's end is a guess and its probe is due with none out, go as
 * the probe. A probe out is waited on (its answer ends the pause or not); one that never answers is
 * followed by the next at its time.
 */
function pausedVerdict(data: TrafficData, nowMs: number): Refusal | 'sole-probe' {
	const pausedBy = data.pausedBy ? { pausedBy: data.pausedBy } : {};
	if (data.pauseProbeAt === undefined) return { go: false, reason: 'paused', until: data.pausedUntil, wake: 'time', ...pausedBy };
	// the pause's probe is one request: it goes whatever else would hold it
	if (nowMs >= data.pauseProbeAt) return 'sole-probe';
	const probeOut = data.pauseProbeId !== undefined;
	return { go: false, reason: 'paused', until: Math.min(data.pausedUntil, data.pauseProbeAt), wake: probeOut ? 'change' : 'time', ...pausedBy };
}

/**
 * A throttle of an item's first request that is its own, not the API's: since the last pause
 * began, retries the server paced have succeeded, none was throttled again and no first request
 * got through, so the API limits each request (an item, a resource) rather than the caller (a
 * shared limit lets new requests through as it refills, and throttles retries as well). Such a throttle pauses nothing and
 * teaches no pace: its item's retry waits the stated time (the retry loop), the other items go on.
 * One paced retry throttled again, and every throttle is the API's until the next pause shows
 * otherwise.
 */
function ownThrottle(data: TrafficData, outcome: Outcome): boolean {
	const answers = data.pacedAnswers;
	return outcome.throttled && outcome.serverWait !== undefined && !outcome.serverWait.inferred && outcome.sent === 'first' && answers !== undefined && answers.ok > 0 && answers.throttled === 0 && !answers.firstOk;
}

/**
 * A throttle for tokens whose answer states the token budget: the budget (tokens.ts) now holds
 * every request that does not fit until the reset, in a line that counts against no deadline, and
 * lets through those that fit. Paused, the whole API waited for the reset, when the budget is whole
 * again (a minute, under steady traffic), small and non-LLM requests with it, and the wait counted
 * against every item's Total Deadline.
 */
function tokenThrottle(outcome: Outcome): boolean {
	return outcome.serverWait !== undefined && isTokenResetHeader(outcome.serverWait.header) && (outcome.tokens?.statements?.length ?? 0) > 0;
}

/** A paced retry's or a first request's answer, for ownThrottle. */
function countAnswer(data: TrafficData, outcome: Outcome): void {
	if (outcome.sent === 'first') {
		// a first request that gets through: the API takes new requests, its throttles are a shared limit's
		if (outcome.success && data.pacedAnswers) data.pacedAnswers.firstOk = (data.pacedAnswers.firstOk ?? 0) + 1;
		return;
	}
	if (outcome.sent !== 'paced') return;
	const answers = (data.pacedAnswers ??= { ok: 0, throttled: 0 });
	if (outcome.throttled) answers.throttled++;
	else if (outcome.success) answers.ok++;
}

/**
 * A throttle's requested wait. A stated end is trusted: it extends the pause, and it replaces a
 * guessed one (the server has now said when). A guessed end bounds the pause, which is probed: from
 * a minute on, or, when this answer was the probe, at twice the last interval (up to 15 minutes).
 */
function pauseFor(data: TrafficData, nowMs: number, wait: NonNullable<Outcome['serverWait']>, fromProbe: boolean, events: TrafficEvent[]): void {
	const until = nowMs + Math.max(0, wait.ms);
	const paused = data.pausedUntil > nowMs;
	const guessed = data.pauseProbeAt !== undefined;
	if (!wait.inferred) {
		if (until <= data.pausedUntil && !guessed) return;
		// one event per pause, not one per 429 of the burst that caused it
		if (!paused) {
			events.push({ kind: 'paused', until, by: wait.header });
			data.pacedAnswers = { ok: 0, throttled: 0 };
		}
		endPause(data);
		data.pausedUntil = until;
		data.pausedBy = wait.header;
		data.retriesFirst = { until: until + serverDelaySpreadMs(wait.ms), by: wait.header };
		return;
	}
	if (paused && !guessed && until <= data.pausedUntil) return;
	const intervalMs = fromProbe && data.pauseProbeMs !== undefined ? Math.min(data.pauseProbeMs * 2, PAUSE_PROBE_MAX_MS) : (data.pauseProbeMs ?? PAUSE_PROBE_FIRST_MS);
	// a stated pause that the guess outlasts is still obeyed to its end: no probe before it
	const statedEnd = paused && !guessed ? data.pausedUntil : 0;
	if (!paused) events.push({ kind: 'paused', until, by: wait.header, probedFrom: nowMs + intervalMs });
	data.pausedUntil = Math.max(until, data.pausedUntil);
	data.pausedBy = wait.header;
	data.pauseProbeMs = intervalMs;
	if (fromProbe || !guessed) data.pauseProbeAt = Math.max(nowMs + intervalMs, statedEnd);
}

export const pause: Limit = {
	name: 'pause',
	copy(data) {
		if (data.pacedAnswers) data.pacedAnswers = { ...data.pacedAnswers };
	},
	settle(data, nowMs, events) {
		if (data.pausedUntil !== 0 && data.pausedUntil <= nowMs) {
			events.push({ kind: 'resumed', by: data.pausedBy ?? 'Retry-After', how: 'time' });
			endPause(data);
		}
		if (data.retriesFirst !== undefined && data.retriesFirst.until <= nowMs) delete data.retriesFirst;
	},
	verdict({ data, nowMs, request }) {
		if (data.pausedUntil > nowMs) return pausedVerdict(data, nowMs);
		// the retries a stated pause held back go first: first requests wait out the spread of their returns
		if (data.retriesFirst !== undefined && data.retriesFirst.until > nowMs && !request.retry) {
			return { go: false, reason: 'paused', until: data.retriesFirst.until, wake: 'time', pausedBy: data.retriesFirst.by };
		}
		return undefined;
	},
	refusalMerges: readsNoCount,
	admitted({ data, nowMs, request, probeBy }) {
		if (probeBy !== pause) return;
		data.pauseProbeId = request.id;
		// if it never answers, the next request after one more interval probes
		data.pauseProbeAt = nowMs + (data.pauseProbeMs ?? PAUSE_PROBE_FIRST_MS);
	},
	// the probe's admission writes what only one request may do
	admissionMerges: (asking) => (asking.probeBy === pause ? undefined : readsNoCount()),
	completed(answer) {
		const { data, nowMs, outcome, events } = answer;
		const probe = data.pauseProbeId === answer.id;
		if (probe) {
			delete data.pauseProbeId;
			answer.frees = answer.exact = true;
		}
		// a spent bucket's throttle pauses its routes only (buckets.ts), never the API, and is no request's own
		const bucketSpent = spentBucketAnswer(outcome);
		answer.ownThrottle = !bucketSpent && ownThrottle(data, outcome);
		countAnswer(data, outcome);
		if (outcome.throttled && outcome.serverWait && !bucketSpent && !answer.ownThrottle && !tokenThrottle(outcome)) pauseFor(data, nowMs, outcome.serverWait, probe, events);
		else if (probe && data.pausedUntil > nowMs) {
			// the probe of a guessed pause got an answer that is no throttle: the API takes requests again
			events.push({ kind: 'resumed', by: data.pausedBy ?? 'probe', how: 'probe' });
			endPause(data);
		}
	},
	forgetAt: (data) => Math.max(data.pausedUntil, data.retriesFirst?.until ?? -Infinity),
	view(data, nowMs, view) {
		if (!(data.pausedUntil > nowMs)) return;
		const probe = data.pauseProbeAt !== undefined ? { probeFrom: iso(data.pauseProbeAt) } : {};
		view.paused = { until: iso(data.pausedUntil), by: data.pausedBy ?? 'Retry-After', ...probe };
	},
	resume(data, nowMs, what, events) {
		if (!what.pause) return;
		if (data.pausedUntil > nowMs) events.push({ kind: 'resumed', by: data.pausedBy ?? 'Retry-After', how: 'hand' });
		endPause(data);
		delete data.retriesFirst;
	},
	adopt(data, local, nowMs) {
		if (!(local.pausedUntil > nowMs && local.pausedUntil > data.pausedUntil)) return;
		data.pausedUntil = local.pausedUntil;
		if (local.pausedBy !== undefined) data.pausedBy = local.pausedBy;
		// a guessed end is probed; the local probe's request is not the shared state's
		if (local.pauseProbeAt !== undefined) data.pauseProbeAt = local.pauseProbeAt;
		if (local.pauseProbeMs !== undefined) data.pauseProbeMs = local.pauseProbeMs;
		delete data.pauseProbeId;
	},
};
