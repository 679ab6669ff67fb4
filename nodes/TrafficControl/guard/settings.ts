/**
 * One item's settings for Wait for Room and Report Outcome, read once before anything waits or is
 * reported: a bad value fails the node then (or the item, under On Error: Continue), naming the
 * parameter and the item.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { BUDGET_DEFAULTS } from '../../shared/core/traffic/budget';
import type { TrafficParams } from '../../shared/core/traffic/controller';
import { HOLD_DEFAULTS } from '../../shared/core/traffic/hold-state';
import type { TokenDemand } from '../../shared/core/traffic/token-estimate';
import { parseWaitValue } from '../../shared/core/item-failure';
import { readKeyLimits, readLane } from '../../shared/n8n/lane-settings';
import { numberParameter, parameterError } from '../../shared/n8n/parameters';
import { nameScope, type ApiName } from '../../shared/n8n/traffic/api-name';
import type { GatedApi } from '../../shared/n8n/traffic/traffic-gate';
import { DAY_MS, readRateAndTokenLimits, TRAFFIC_NUMBERS } from '../../shared/n8n/traffic-numbers';
import { GUARD_DEFAULTS } from './properties';

/**
 * The items in flight Wait for Room lets through: a fixed window, not the learned one. A node's
 * items leave Wait for Room together, and are reported only after the node between has run them
 * all: a batch larger than the learned window (10 for a new API) would wait for reports that its
 * own items hold back, until Max Wait. The node between sends its items one after the other; the
 * API's pace, token budget, pauses and holds are what protect it.
 */
const WINDOW_CEILING = 1000;

export interface WaitSettings {
	api: GatedApi;
	maxWaitMs: number;
	/** What the item asks of the API's token budget; none without a token limit or an estimate. */
	tokens?: TokenDemand;
}

function readScope(ctx: IExecuteFunctions, i: number, required: boolean): string {
	const raw = ctx.getNodeParameter('apiScope', i, '') as unknown;
	if (typeof raw !== 'string' && typeof raw !== 'number') parameterError(ctx, i, 'API Scope', `must be text, got ${typeof raw}`);
	const scope = String(raw).trim();
	if (scope === '' && required) parameterError(ctx, i, 'API Scope', 'must name the API the next node calls, e.g. openai');
	return scope;
}

export function readWaitSettings(ctx: IExecuteFunctions, i: number, json: IDataObject): WaitSettings {
	const scope = readScope(ctx, i, true);
	const o = ctx.getNodeParameter('waitOptions', i, {}) as IDataObject;
	const num = (label: string, raw: unknown, fallback: number, limits: { min: number; max: number; integer?: boolean }) => numberParameter(ctx, i, label, raw ?? fallback, limits);
	const maxWaitMs = num('Max Wait (Ms)', o.maxWait, GUARD_DEFAULTS.maxWaitMs, { min: 0, max: DAY_MS });
	const leaseMs = num('Report Within (Ms)', o.reportWithin, GUARD_DEFAULTS.reportWithinMs, { min: 1000, max: DAY_MS });
	const params: TrafficParams = { window: { ceiling: WINDOW_CEILING, mode: 'fixed' }, leaseMs };
	if (o.budget !== false) params.budget = { ...BUDGET_DEFAULTS };
	if (o.breaker !== false) params.hold = { ...HOLD_DEFAULTS };
	Object.assign(params, readRateAndTokenLimits(ctx, i, o));
	const estimated = num('Estimated Tokens', o.estimatedTokens, 0, { min: 0, max: TRAFFIC_NUMBERS.tokenLimit.max, integer: true });
	// a given estimate counts as it is; without one, the item's own JSON stands in for its prompt
	const tokens: TokenDemand | undefined = estimated > 0 ? { chars: 0, output: estimated } : params.tokenLimitPerMinute !== undefined ? { chars: JSON.stringify(json).length, output: 0 } : undefined;
	const api = nameScope(scope) as ApiName;
	params.label = api.label;
	const lane = readLane(ctx, i, o);
	const keyLimits = readKeyLimits(ctx, i, o);
	return { api: { ...api, params, ...(lane ? { lane } : {}), ...(keyLimits ? { keyLimits } : {}) }, maxWaitMs, ...(tokens ? { tokens } : {}) };
}

export interface ReportSettings {
	/** The API named by API Scope; undefined: the one this execution waited for. */
	apiKey?: string;
	statusCode?: number;
	serverWaitMs?: number;
}

export function readReportSettings(ctx: IExecuteFunctions, i: number, nowMs: number): ReportSettings {
	const scope = readScope(ctx, i, false);
	const o = ctx.getNodeParameter('reportOptions', i, {}) as IDataObject;
	const status = numberParameter(ctx, i, 'Status Code', o.statusCode ?? 0, { min: 0, max: 599, integer: true });
	if (status !== 0 && status < 100) parameterError(ctx, i, 'Status Code', `must be an HTTP status (100 to 599) or 0 to find it on the item, got ${status}`);
	let serverWaitMs: number | undefined;
	try {
		serverWaitMs = parseWaitValue(o.serverWait, nowMs);
	} catch (error) {
		parameterError(ctx, i, 'Server-Requested Wait', (error as Error).message);
	}
	return { ...(scope !== '' ? { apiKey: nameScope(scope)?.key } : {}), ...(status !== 0 ? { statusCode: status } : {}), ...(serverWaitMs !== undefined ? { serverWaitMs } : {}) };
}
