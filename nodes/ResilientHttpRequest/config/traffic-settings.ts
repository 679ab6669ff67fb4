/**
 * The Traffic Control parameters of one item, read into the name and limits of its API's traffic
 * controller (the name as every node makes it: nodes/shared/n8n/traffic/api-name.ts).
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import type { TrafficParams } from '../../shared/core/traffic/controller';
import { numberParameter, parameterError } from '../../shared/n8n/parameters';
import { nameApi, type ApiName } from '../../shared/n8n/traffic/api-name';
import { HOLD_DEFAULTS } from '../../shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../shared/core/traffic/budget';
import { selectedCredentialType, type AuthSelection } from '../auth/auth-plan';
import type { ScheduleSettings } from './schedule-settings';

export interface TrafficControl extends ApiName {
	params: TrafficParams;
}

/** A request that has not reported after its time limit and this much more is given up. */
const LEASE_MARGIN_MS = 10_000;
/** Without an attempt timeout, a request in flight holds its slot at most this long. */
const LEASE_WITHOUT_TIMEOUT_MS = 600_000;

/** What the traffic settings depend on, already read by the item's config. */
interface TrafficInputs {
	url: string;
	auth: AuthSelection;
	/** The run's copy of the node (RunSettings.node): the credentials it names. */
	node: Readonly<INode>;
	schedule: ScheduleSettings;
	attemptTimeoutMs: number;
}

export function readTrafficControl(ctx: IExecuteFunctions, i: number, { url, auth, node, schedule, attemptTimeoutMs }: TrafficInputs): TrafficControl {
	const o = ctx.getNodeParameter('sharedLimits', i, {}) as IDataObject;
	const num = (name: string, label: string, fallback: number, limits: { min?: number; max?: number; integer?: boolean } = {}) => numberParameter(ctx, i, label, o[name] ?? fallback, limits);
	// `breakerScope`: the breaker's own scope before both became the API's; still honoured
	const scope = String(o.budgetScope ?? '').trim() || String(o.breakerScope ?? '').trim();
	const parsed = new URL(url);
	const params: TrafficParams = {
		window: { ceiling: schedule.concurrency, mode: schedule.adaptive ? 'adaptive' : 'fixed' },
		leaseMs: attemptTimeoutMs > 0 ? attemptTimeoutMs + LEASE_MARGIN_MS : LEASE_WITHOUT_TIMEOUT_MS,
	};
	if (o.budget !== false) {
		params.budget = {
			ratio: num('budgetPercent', 'Budget: Retries Allowed (% of First Attempts)', BUDGET_DEFAULTS.ratio * 100, { max: 1000 }) / 100,
			minRetriesPerWindow: num('budgetMinRetries', 'Budget: Retries Always Allowed per Window', BUDGET_DEFAULTS.minRetriesPerWindow, { integer: true, max: 1_000_000 }),
			windowMs: num('budgetWindow', 'Budget: Window (Ms)', BUDGET_DEFAULTS.windowMs, { min: 1000 }),
		};
	}
	if (o.breaker !== false) {
		const breakMs = num('breakerBreak', 'Hold: First Probe After (Ms)', HOLD_DEFAULTS.breakMs, { min: 1 });
		const maxBreakMs = num('breakerMaxBreak', 'Hold: Max Probe Interval (Ms)', HOLD_DEFAULTS.maxBreakMs, { min: 1 });
		if (breakMs > maxBreakMs) parameterError(ctx, i, 'Hold: First Probe After (Ms)', `must not be more than Hold: Max Probe Interval (Ms) (${maxBreakMs}), got ${breakMs}`);
		params.hold = {
			consecutiveFailures: num('breakerConsecutiveFailures', 'Hold: Consecutive Failures', HOLD_DEFAULTS.consecutiveFailures, { integer: true, max: 1_000_000 }),
			failureRatio: num('breakerFailurePercent', 'Hold: Failure Ratio (%)', HOLD_DEFAULTS.failureRatio * 100, { max: 100 }) / 100,
			minimumCalls: num('breakerMinimumCalls', 'Hold: Minimum Requests', HOLD_DEFAULTS.minimumCalls, { integer: true, min: 1, max: 1_000_000 }),
			windowMs: num('breakerWindow', 'Hold: Window (Ms)', HOLD_DEFAULTS.windowMs, { min: 1000 }),
			breakMs,
			maxBreakMs,
		};
	}
	const rate = num('rateLimit', 'Rate Limit', 0, { max: 1_000_000 });
	if (rate > 0) {
		const per = o.rateLimitPer ?? 'second';
		if (per !== 'second' && per !== 'minute') parameterError(ctx, i, 'Rate Limit Per', `must be second or minute, got ${JSON.stringify(per)}`);
		params.rateLimitRps = per === 'minute' ? rate / 60 : rate;
	}
	// the credential as the parameters stand; they were checked when the item's credential was read
	const api = nameApi(parsed, node, selectedCredentialType(auth), scope);
	params.label = api.label;
	return { ...api, params };
}
