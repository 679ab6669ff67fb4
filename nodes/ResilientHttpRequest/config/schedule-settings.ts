/**
 * The node-wide settings of a run (Max Items in Flight, Adapt Items in Flight, Batching), read from
 * the first item as HTTP Request reads its batching.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { numberParameter, parameterError } from '../../shared/n8n/parameters';
import { ITEMS_IN_FLIGHT, ITEMS_PER_BATCH } from '../descriptions/options.description';

export interface ScheduleSettings {
	/** Max Items in Flight: the ceiling of the adaptive window, or the fixed limit. */
	concurrency: number;
	/** Adapt Items in Flight: start lower and follow the API's back-pressure (AIMD). */
	adaptive: boolean;
	batchSize: number;
	batchIntervalMs: number;
}

export function readScheduleSettings(ctx: IExecuteFunctions): ScheduleSettings {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const batch = ((options.batching as IDataObject | undefined)?.batch ?? {}) as IDataObject;
	const concurrency = numberParameter(ctx, 0, 'Max Items in Flight', options.maxConcurrency ?? ITEMS_IN_FLIGHT.default, { integer: true, ...ITEMS_IN_FLIGHT });
	const adaptive = options.adaptConcurrency ?? true;
	if (typeof adaptive !== 'boolean') parameterError(ctx, 0, 'Adapt Items in Flight', `must be true or false, got ${JSON.stringify(adaptive)}`);
	const rawSize = batch.batchSize === undefined ? -1 : numberParameter(ctx, 0, 'Items per Batch', batch.batchSize, { integer: true, ...ITEMS_PER_BATCH });
	return {
		concurrency,
		// batching is a pace the user chose (n items every t ms): the window must not slow it further
		adaptive: adaptive && rawSize <= 0,
		batchSize: rawSize === 0 ? 1 : rawSize,
		batchIntervalMs: batch.batchInterval === undefined ? 0 : numberParameter(ctx, 0, 'Batch Interval (ms)', batch.batchInterval, {}),
	};
}
