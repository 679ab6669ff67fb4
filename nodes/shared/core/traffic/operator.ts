/**
 * What an operator reads of an API's traffic controller, and how a pause or a hold is ended by hand
 * (the Resilient HTTP Traffic Control node). Pure: the state as a store keeps it, the time passed in.
 *
 * The view shows what the state holds: the settings of the nodes that call the API (Max Items in
 * Flight, Rate Limit, the budget's share) are theirs, not the state's, so the window is the learned
 * one (a node's Max Items in Flight caps it), the pace the learned one, the budget its counts.
 */
import { breakerSnapshot, HOLD_DEFAULTS } from './breaker';
import { BUDGET_DEFAULTS, budgetSnapshot } from './budget';
import { freshRate, learnedRps } from './rate';
import { freshWindow, restart } from './window';
import type { TrafficData, TrafficEvent } from './controller';

/** One API's controller as an n8n item shows it (times as ISO strings). */
interface TrafficView {
	api: string;
	/** The host (or "its scope"): what the log calls it. */
	label: string | null;
	paused: { until: string; by: string; probeFrom?: string; bucket?: string } | null;
	buckets: Array<{ bucket: string; remaining: number; resetAt: string; spent: boolean }>;
	held: { state: 'open' | 'half-open'; nextProbeAt: string | null; openings: number } | null;
	window: { size: number; inFlight: number; slowStart: boolean };
	pace: { learnedPerSecond: number | null; nextAt: string | null };
	budget: { firstAttempts: number; retries: number; windowMs: number } | null;
	lastRequestAt: string;
}

const iso = (ms: number) => new Date(Math.min(ms, 8.64e15)).toISOString();

function pausedView(data: TrafficData, nowMs: number): TrafficView['paused'] {
	if (data.pausedUntil > nowMs) {
		const probe = data.pauseProbeAt !== undefined ? { probeFrom: iso(data.pauseProbeAt) } : {};
		return { until: iso(data.pausedUntil), by: data.pausedBy ?? 'Retry-After', ...probe };
	}
	const quota = data.rate.quota;
	if (quota && quota.resetAt > nowMs && quota.remaining - quota.sentSince <= 0) return { until: iso(quota.resetAt), by: 'quota' };
	return null;
}

/** One API's view; `inFlight`: its requests in flight, as the store counts them (leases are not in the state). */
export function trafficView(key: string, data: TrafficData, inFlight: number, nowMs: number): TrafficView {
	const hold = data.hold ? breakerSnapshot(data.hold, nowMs, { ...HOLD_DEFAULTS, windowMs: data.hold.windowMs, maxBreakMs: Infinity, probeTimeoutMs: Infinity }) : undefined;
	const learned = learnedRps(data.rate, nowMs);
	const budget = data.budget ? budgetSnapshot(data.budget, nowMs, { ...BUDGET_DEFAULTS, windowMs: data.budget.windowMs }) : undefined;
	return {
		api: key,
		label: data.label ?? null,
		paused: pausedView(data, nowMs),
		buckets: Object.entries(data.buckets?.quotas ?? {}).map(([bucket, q]) => ({ bucket, remaining: Math.max(0, q.remaining - q.sentSince), resetAt: iso(q.resetAt), spent: q.resetAt > nowMs && q.remaining - q.sentSince <= 0 })),
		held: hold && hold.state !== 'closed' ? { state: hold.state, nextProbeAt: hold.openUntil !== undefined && Number.isFinite(hold.openUntil) ? iso(hold.openUntil) : null, openings: hold.openings } : null,
		window: { size: data.window.size, inFlight, slowStart: data.window.slowStart },
		pace: { learnedPerSecond: learned !== undefined ? Math.round(learned * 10) / 10 : null, nextAt: data.rate.nextAt > nowMs ? iso(data.rate.nextAt) : null },
		budget: budget ? { firstAttempts: budget.firstAttempts, retries: budget.retries, windowMs: budget.windowMs } : null,
		lastRequestAt: iso(data.touchedAt),
	};
}

/** What to end by hand. */
export interface ResumeRequest {
	/** The pause: a server's wait, a guessed one, a spent quota (the API's and its buckets'). */
	pause: boolean;
	/** The outage hold: closed, the requests come back in slow start. */
	hold: boolean;
}

/**
 * Ends a pause or a hold by hand (mutates a copy): the next request goes at once. A spent quota is
 * forgotten (the next answer says the count again); a hold closes and the window restarts in slow
 * start, as after a successful probe.
 */
export function resumeTraffic(previous: TrafficData | undefined, nowMs: number, what: ResumeRequest): { data: TrafficData; events: TrafficEvent[] } {
	// no state: nothing to end (a state forgotten long ago, which a store drops at once)
	if (!previous) return { data: { window: freshWindow({ ceiling: 1, mode: 'adaptive' }), rate: freshRate(), pausedUntil: 0, touchedAt: -Infinity }, events: [] };
	const data = JSON.parse(JSON.stringify(previous)) as TrafficData;
	const events: TrafficEvent[] = [];
	if (what.pause) {
		if (data.pausedUntil > nowMs || data.rate.quota) {
			events.push({ kind: 'resumed', by: data.pausedUntil > nowMs ? (data.pausedBy ?? 'Retry-After') : 'quota', how: 'hand' });
		}
		data.pausedUntil = 0;
		delete data.pausedBy;
		delete data.pauseProbeAt;
		delete data.pauseProbeMs;
		delete data.pauseProbeId;
		delete data.retriesFirst;
		delete data.rate.quota;
		for (const bucket of Object.keys(data.buckets?.quotas ?? {})) {
			events.push({ kind: 'resumed', by: 'quota', how: 'hand', bucket });
			delete data.buckets!.quotas[bucket];
		}
	}
	if (what.hold && data.hold && data.hold.state !== 'closed') {
		delete data.hold;
		restart(data.window);
		events.push({ kind: 'resumed', by: 'outage hold', how: 'hand' });
	}
	return { data, events };
}
