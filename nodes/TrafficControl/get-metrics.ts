/**
 * Traffic Control's Get Metrics: the controllers' counts (this process's with the memory store,
 * the fleet's with Redis) and their state now, per API, as items or as Prometheus text for a
 * Respond to Webhook node to serve to a scraper (docs/metrics.md). Reading is O(APIs): the counts
 * kept per API, and the states the store lists.
 */
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { TrafficData } from '../shared/core/traffic/controller';
import { joinApiMetrics, metricFamilies, metricsItem, type ApiMetrics } from '../shared/core/traffic/metric-families';
import { trafficView } from '../shared/core/traffic/operator';
import { formatPrometheusText, PROMETHEUS_CONTENT_TYPE } from '../shared/core/traffic/prometheus-text';
import type { OperatorStore } from '../shared/n8n/traffic/state-store';
import { getProcessTrafficCounts } from '../shared/n8n/traffic/traffic-metrics';
import { apiMatches, type ApiFilter } from './api-filter';
import { hintNothingFound, noApiError } from './no-api';

type Format = 'items' | 'prometheus';

function formatOf(ctx: IExecuteFunctions, i: number): Format {
	const format = ctx.getNodeParameter('format', i, 'items') as unknown;
	if (format !== 'items' && format !== 'prometheus') throw new NodeOperationError(ctx.getNode(), `The parameter "Format" must be items or prometheus, got ${JSON.stringify(format)}`, { itemIndex: i });
	return format;
}

function outputFieldOf(ctx: IExecuteFunctions, i: number): string {
	const field = ctx.getNodeParameter('outputField', i, 'metrics') as unknown;
	if (typeof field !== 'string' || field.trim() === '') throw new NodeOperationError(ctx.getNode(), 'The parameter "Put Output in Field" must name a field, e.g. metrics', { itemIndex: i });
	return field.trim();
}

/** Every API's counts and state now: the store's fleet counts when it keeps them (Redis), else this process's. */
export async function readApiMetrics(store: OperatorStore, states: ReadonlyArray<{ key: string; data: TrafficData; inFlight: number }>, nowMs: number): Promise<ApiMetrics[]> {
	const counted = store.counts ? await store.counts() : getProcessTrafficCounts().all();
	return joinApiMetrics(
		counted,
		states.map(({ key, data, inFlight }) => ({ key, view: trafficView(key, data, inFlight, nowMs) })),
	);
}

/**
 * Item i's output: one item per API the filter names, or one item with the text of them all in
 * the output field. A filter that names none: no items per API (a hint says why), or a text of
 * the families with no samples (a scraper reads it as "nothing yet").
 */
export function metricsOutput(ctx: IExecuteFunctions, i: number, filter: ApiFilter | undefined, apis: readonly ApiMetrics[], states: ReadonlyArray<{ key: string; data: TrafficData }>): INodeExecutionData[] {
	const format = formatOf(ctx, i);
	const named = filter === undefined ? apis : apis.filter((api) => apiMatches(filter, api.key, api.label));
	if (filter !== undefined && named.length === 0) hintNothingFound(ctx, noApiError(ctx, i, filter, states));
	if (format === 'items') return named.map((api) => ({ json: metricsItem(api) as INodeExecutionData['json'], pairedItem: { item: i } }));
	const text = formatPrometheusText(metricFamilies(named));
	return [{ json: { [outputFieldOf(ctx, i)]: text, contentType: PROMETHEUS_CONTENT_TYPE, apis: named.length }, pairedItem: { item: i } }];
}
