/** Reading node parameters with errors that name the parameter and the item. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { JITTER_STRATEGIES, type JitterStrategy } from '../core/backoff';
import { parseStatusList, type StatusSet } from '../core/classify';
import { RETRY_LIMITS } from '../core/defaults';

/** `detail` (a parser's own words, say) goes to the description, keeping the message short and stable. */
export function parameterError(ctx: IExecuteFunctions, i: number, parameter: string, problem: string, detail?: string): never {
	throw new NodeOperationError(ctx.getNode(), `Parameter "${parameter}" ${problem} (item ${i})`, {
		itemIndex: i,
		description: `Item ${i}: fix "${parameter}" in the node's parameters.${detail ? ` ${detail}` : ''}`,
	});
}

export interface NumberLimits {
	integer?: boolean;
	min?: number;
	max?: number;
}

export function numberParameter(ctx: IExecuteFunctions, i: number, label: string, raw: unknown, { integer = false, min = 0, max = RETRY_LIMITS.maxDelayMs }: NumberLimits = {}): number {
	const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
	// JSON.stringify shows Infinity and NaN as null: numbers are shown as they are
	if (typeof value !== 'number' || !Number.isFinite(value)) parameterError(ctx, i, label, `must be a number, got ${typeof raw === 'number' ? String(raw) : JSON.stringify(raw)}`);
	if (integer && !Number.isInteger(value)) parameterError(ctx, i, label, `must be a whole number, got ${value}`);
	if (value < min) parameterError(ctx, i, label, `must be at least ${min}, got ${value}`);
	if (value > max) parameterError(ctx, i, label, `must be at most ${max}, got ${value}`);
	return value;
}

/** Base and max delay of a backoff: the base (the first wait) cannot exceed the cap of every wait. */
export function backoffDelayParameters(ctx: IExecuteFunctions, i: number, rawBase: unknown, rawMax: unknown): { baseDelayMs: number; maxDelayMs: number } {
	const baseDelayMs = numberParameter(ctx, i, 'Base Delay (Ms)', rawBase);
	const maxDelayMs = numberParameter(ctx, i, 'Max Delay (Ms)', rawMax);
	if (baseDelayMs > maxDelayMs) parameterError(ctx, i, 'Base Delay (Ms)', `must not be more than Max Delay (Ms) (${maxDelayMs}), got ${baseDelayMs}`);
	return { baseDelayMs, maxDelayMs };
}

export function jitterParameter(ctx: IExecuteFunctions, i: number, raw: unknown): JitterStrategy {
	if (!JITTER_STRATEGIES.includes(raw as JitterStrategy)) parameterError(ctx, i, 'Jitter', `must be one of ${JITTER_STRATEGIES.join(', ')}, got ${JSON.stringify(raw)}`);
	return raw as JitterStrategy;
}

export function statusListParameter(ctx: IExecuteFunctions, i: number, raw: unknown): StatusSet {
	try {
		return parseStatusList(String(raw));
	} catch (error) {
		parameterError(ctx, i, 'Retry On Status Codes', `is invalid: ${(error as Error).message}`);
	}
}
