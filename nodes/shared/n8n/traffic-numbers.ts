import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { TrafficParams } from '../core/traffic/types';
import { numberParameter, parameterError } from './parameters';
import { HOLD_DEFAULTS } from '../core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../core/traffic/budget';

export const DAY_MS = 24 * 3600_000;

/**
 * The numbers of Traffic Control, as the editor names them, with their defaults and the limits both
 * the editor (minValue/maxValue) and the runtime (ResilientHttpRequest/config/traffic-settings.ts) hold them to. Their
 * internal names are kept from the retry budget and circuit breaker they grew from, so workflows
 * saved with them keep their settings; the display names are the glossary's (docs/glossary.md).
 */
export const TRAFFIC_NUMBERS = {
	budgetPercent: { displayName: 'Retry Budget: Retries Allowed (%)', default: BUDGET_DEFAULTS.ratio * 100, min: 0, max: 1000, integer: false },
	budgetMinRetries: { displayName: 'Retry Budget: Retries Always Allowed', default: BUDGET_DEFAULTS.minRetriesPerWindow, min: 0, max: 1_000_000, integer: true },
	budgetWindow: { displayName: 'Retry Budget: Counted Over (Ms)', default: BUDGET_DEFAULTS.windowMs, min: 1000, max: DAY_MS, integer: false },
	breakerConsecutiveFailures: { displayName: 'Hold: Failures in a Row', default: HOLD_DEFAULTS.consecutiveFailures, min: 0, max: 1_000_000, integer: true },
	breakerFailurePercent: { displayName: 'Hold: Failed Share (%)', default: HOLD_DEFAULTS.failureRatio * 100, min: 0, max: 100, integer: false },
	breakerMinimumCalls: { displayName: 'Hold: Minimum Requests for the Share', default: HOLD_DEFAULTS.minimumCalls, min: 1, max: 1_000_000, integer: true },
	breakerWindow: { displayName: 'Hold: Counted Over (Ms)', default: HOLD_DEFAULTS.windowMs, min: 1000, max: DAY_MS, integer: false },
	breakerBreak: { displayName: 'Hold: First Test Request After (Ms)', default: HOLD_DEFAULTS.breakMs, min: 1, max: DAY_MS, integer: false },
	breakerMaxBreak: { displayName: 'Hold: Max Time Between Test Requests (Ms)', default: HOLD_DEFAULTS.maxBreakMs, min: 1, max: DAY_MS, integer: false },
	rateLimit: { displayName: 'Rate Limit', default: 0, min: 0, max: 1_000_000, integer: false },
	keyRateLimit: { displayName: 'Rate Limit Per Key', default: 0, min: 0, max: 1_000_000, integer: false },
	keyMaxInFlight: { displayName: 'Max Items in Flight Per Key', default: 0, min: 0, max: 1_000_000, integer: true },
	tokenLimit: { displayName: 'Token Limit (Per Minute)', default: 0, min: 0, max: 1_000_000_000, integer: true },
} as const;


type TrafficNumber = keyof typeof TRAFFIC_NUMBERS;

/** One of Traffic Control's numbers as the editor shows it: its name, limits and default from TRAFFIC_NUMBERS. */
export function trafficNumber(name: TrafficNumber, description: string): INodeProperties {
	const spec = TRAFFIC_NUMBERS[name];
	return {
		displayName: spec.displayName,
		name,
		type: 'number',
		typeOptions: { minValue: spec.min, maxValue: spec.max, ...(spec.integer ? { numberPrecision: 0 } : {}) },
		default: spec.default,
		description,
	};
}

/** What Rate Limit counts per: a second or a minute. */
export const RATE_LIMIT_PER_PROPERTY: INodeProperties = {
	displayName: 'Rate Limit Per',
	name: 'rateLimitPer',
	type: 'options',
	options: [
		{ name: 'Second', value: 'second' },
		{ name: 'Minute', value: 'minute' },
	],
	default: 'second',
};

/** One of Traffic Control's numbers of item `i`, from its options: under its editor name and limits, its default when not set. */
export function readTrafficNumber(ctx: IExecuteFunctions, i: number, options: IDataObject, name: TrafficNumber): number {
	const spec = TRAFFIC_NUMBERS[name];
	return numberParameter(ctx, i, spec.displayName, options[name] ?? spec.default, spec);
}

type RateLimits = Pick<TrafficParams, 'rateLimitRps' | 'rateLimitWindowMs'>;

/** A rate of item `i` (Rate Limit, Rate Limit Per Key) in the unit of Rate Limit Per: none when 0. */
export function readRate(ctx: IExecuteFunctions, i: number, options: IDataObject, name: 'rateLimit' | 'keyRateLimit'): RateLimits {
	const rate = readTrafficNumber(ctx, i, options, name);
	if (rate <= 0) return {};
	const per = options.rateLimitPer ?? 'second';
	if (per !== 'second' && per !== 'minute') parameterError(ctx, i, 'Rate Limit Per', `must be second or minute, got ${JSON.stringify(per)}`);
	return per === 'minute' ? { rateLimitRps: rate / 60, rateLimitWindowMs: 60_000 } : { rateLimitRps: rate };
}

/** Rate Limit (per second or minute) and Token Limit of item `i`, as the controller takes them: none when 0. */
export function readRateAndTokenLimits(ctx: IExecuteFunctions, i: number, options: IDataObject): Pick<TrafficParams, 'rateLimitRps' | 'rateLimitWindowMs' | 'tokenLimitPerMinute'> {
	const limits: Pick<TrafficParams, 'rateLimitRps' | 'rateLimitWindowMs' | 'tokenLimitPerMinute'> = readRate(ctx, i, options, 'rateLimit');
	const tokens = readTrafficNumber(ctx, i, options, 'tokenLimit');
	if (tokens > 0) limits.tokenLimitPerMinute = tokens;
	return limits;
}
