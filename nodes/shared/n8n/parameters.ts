/** Reading node parameters with errors that name the parameter and the item. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { RETRY_LIMITS } from '../core/defaults';

/** `detail` (a parser's own words, say) goes to the description, keeping the message short and stable. */
export function parameterError(ctx: IExecuteFunctions, i: number, parameter: string, problem: string, detail?: string): never {
	throw new NodeOperationError(ctx.getNode(), `Parameter "${parameter}" ${problem} (item ${i})`, {
		itemIndex: i,
		description: `Item ${i}: fix "${parameter}" in the node's parameters.${detail ? ` ${detail}` : ''}`,
	});
}

/**
 * A bad parameter HTTP Request also checks, in its words (a workflow that catches its message
 * reads the same). The item is named in the error's context (HTTP Request leaves it out for some:
 * deviation parameter-errors-name-the-item).
 */
export function httpRequestParameterError(ctx: IExecuteFunctions, i: number, message: string, description?: string): never {
	throw new NodeOperationError(ctx.getNode(), message, { itemIndex: i, ...(description !== undefined ? { description } : {}) });
}

interface NumberLimits {
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
