/**
 * The Traffic Control parameters of one item, read into the name and limits of its API's traffic
 * controller (the name as every node makes it: nodes/shared/n8n/traffic/api-name.ts).
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import type { TrafficParams } from '../../shared/core/traffic/controller';
import { parameterError } from '../../shared/n8n/parameters';
import { nameApi, type ApiName } from '../../shared/n8n/traffic/api-name';
import { readRateAndTokenLimits, readTrafficNumber, TRAFFIC_NUMBERS } from '../../shared/n8n/traffic-numbers';
import { selectedCredentialType, type AuthSelection } from '../auth/auth-plan';
import type { ScheduleSettings } from './schedule-settings';
import type { Lane } from '../../shared/core/traffic/fair-line';
import { readKeyLimits, readLane } from '../../shared/n8n/lane-settings';
import type { KeyLimits } from '../../shared/core/traffic/key-gate';

export interface TrafficControl extends ApiName {
	params: TrafficParams;
	/** The item's place among the requests waiting for the API (Fair Share Key, Urgent); none: arrival order. */
	lane?: Lane;
	/** Its Fair Share Key's own limits (Rate Limit Per Key, Max Items in Flight Per Key); none: the API's only. */
	keyLimits?: KeyLimits;
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
	// each number under its editor name and limits (TRAFFIC_NUMBERS), its default when not set
	const num = (name: keyof typeof TRAFFIC_NUMBERS) => readTrafficNumber(ctx, i, o, name);
	// `breakerScope`: the breaker's own scope before both became the API's; still honoured
	const scope = String(o.budgetScope ?? '').trim() || String(o.breakerScope ?? '').trim();
	const parsed = new URL(url);
	const params: TrafficParams = {
		window: { ceiling: schedule.concurrency, mode: schedule.adaptive ? 'adaptive' : 'fixed' },
		leaseMs: attemptTimeoutMs > 0 ? attemptTimeoutMs + LEASE_MARGIN_MS : LEASE_WITHOUT_TIMEOUT_MS,
	};
	if (o.budget !== false) {
		params.budget = { ratio: num('budgetPercent') / 100, minRetriesPerWindow: num('budgetMinRetries'), windowMs: num('budgetWindow') };
	}
	if (o.breaker !== false) {
		const breakMs = num('breakerBreak');
		const maxBreakMs = num('breakerMaxBreak');
		const { breakerBreak, breakerMaxBreak } = TRAFFIC_NUMBERS;
		if (breakMs > maxBreakMs) parameterError(ctx, i, breakerBreak.displayName, `must not be more than ${breakerMaxBreak.displayName} (${maxBreakMs}), got ${breakMs}`);
		params.hold = {
			consecutiveFailures: num('breakerConsecutiveFailures'),
			failureRatio: num('breakerFailurePercent') / 100,
			minimumCalls: num('breakerMinimumCalls'),
			windowMs: num('breakerWindow'),
			breakMs,
			maxBreakMs,
		};
	}
	Object.assign(params, readRateAndTokenLimits(ctx, i, o));
	// the credential as the parameters stand; they were checked when the item's credential was read
	const api = nameApi(parsed, node, selectedCredentialType(auth), scope);
	params.label = api.label;
	const lane = readLane(ctx, i, o);
	const keyLimits = readKeyLimits(ctx, i, o);
	return { ...api, params, ...(lane ? { lane } : {}), ...(keyLimits ? { keyLimits } : {}) };
}
