/**
 * The Traffic Control node: reads the APIs' controllers from the store the Resilient HTTP Request
 * nodes use (this process's memory, or Redis), and ends a pause or a hold by hand through the same
 * atomic step as a request's, so that no request's update is lost in between.
 */
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Runtime } from '../shared/core/runtime';
import { HOLD_DEFAULTS } from '../shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../shared/core/traffic/budget';
import type { TrafficData, TrafficEvent, TrafficParams } from '../shared/core/traffic/controller';
import { resumeTraffic, trafficView } from '../shared/core/traffic/operator';
import type { ResumeRequest } from '../shared/core/traffic/types';
import { wakeAllQueuesOf } from '../shared/core/traffic/wait-queues';
import { getProcessWaiters } from '../shared/core/traffic/waiters';
import { selectStateStore, type OperatorStore } from '../shared/n8n/traffic/state-store';
import { isKeyShareKey } from '../shared/n8n/traffic/api-name';
import { getProcessTrafficEvents } from '../shared/n8n/traffic/traffic-events';
import { logNameOf } from '../shared/n8n/traffic/traffic-log';
import { apiMatches, readApiFilter, type ApiFilter } from './api-filter';
import { hintNothingFound, noApiError } from './no-api';
import { metricsOutput, readApiMetrics } from './get-metrics';
import { countTraffic } from '../shared/n8n/traffic/traffic-metrics';
import { reportOutcome } from './guard/report-outcome';
import { waitForRoom } from './guard/wait-for-room';
import { eventCounts } from '../shared/core/traffic/traffic-counts';

/** How the log lines of this node name it: its display name (TrafficControl.node.ts). */
const NODE_DISPLAY_NAME = 'Resilient HTTP Traffic Control';

/**
 * The store needs params only to know when a state may be dropped: the nodes' own settings are not
 * known here, so the defaults stand in until the API's next request writes it with its own.
 */
const OPERATOR_PARAMS: TrafficParams = Object.freeze({ window: { ceiling: 1000, mode: 'adaptive' as const }, leaseMs: 600_000, hold: { ...HOLD_DEFAULTS }, budget: { ...BUDGET_DEFAULTS } });

/** The API parameter (api-filter.ts says the forms it takes); undefined: every API (Get State only). */
function apiFilter(ctx: IExecuteFunctions, i: number, required: boolean): ApiFilter | undefined {
	const raw = ctx.getNodeParameter('api', i, '') as unknown;
	if (typeof raw !== 'string') throw new NodeOperationError(ctx.getNode(), `The parameter "API" must be text, got ${typeof raw}`, { itemIndex: i });
	const value = raw.trim();
	if (value === '') {
		if (required) throw new NodeOperationError(ctx.getNode(), 'The parameter "API" must name an API: its host (e.g. api.github.com), a URL on it, or a key from Get State', { itemIndex: i });
		return undefined;
	}
	try {
		return readApiFilter(value);
	} catch {
		throw new NodeOperationError(ctx.getNode(), `The parameter "API" is not a host, a URL or a key: ${value}`, { itemIndex: i });
	}
}

function matches(key: string, data: TrafficData, filter: ApiFilter | undefined): boolean {
	return filter === undefined || apiMatches(filter, key, data.label);
}

function endOf(ctx: IExecuteFunctions, i: number): ResumeRequest {
	const end = ctx.getNodeParameter('end', i, 'both') as string;
	if (end !== 'both' && end !== 'pause' && end !== 'hold') throw new NodeOperationError(ctx.getNode(), `The parameter "End" must be both, pause or hold, got ${JSON.stringify(end)}`, { itemIndex: i });
	return { pause: end !== 'hold', hold: end !== 'pause' };
}

/** Ends what `what` names on one API; returns the item that says what was ended, and the state after. */
async function resumeOne(ctx: IExecuteFunctions, store: OperatorStore, key: string, nowMs: number, what: ResumeRequest): Promise<Record<string, unknown>> {
	let events: TrafficEvent[] = [];
	const result = await store.traffic(key, nowMs, OPERATOR_PARAMS, (data, leases) => {
		const none = { ended: [] as string[], after: undefined as TrafficData | undefined, inFlight: leases.count };
		if (!data) return { data: resumeTraffic(undefined, nowMs, what).data, result: none, changed: false };
		const step = resumeTraffic(data, nowMs, what);
		events = step.events;
		const ended = step.events.map((e) => (e.kind === 'resumed' && e.bucket !== undefined ? `bucket ${e.bucket}` : e.kind === 'resumed' ? e.by : e.kind));
		// nothing ended: nothing written; something ended: the other workers' waiting requests are told (Redis publishes)
		const changed = ended.length > 0;
		return { data: changed ? step.data : data, result: { ended, after: changed ? step.data : data, inFlight: leases.count }, changed, frees: changed };
	});
	// requests of this process waiting on the API look again now (other workers' on the store's news, or at their next look)
	wakeAllQueuesOf(getProcessWaiters(), key);
	const name = logNameOf(ctx, NODE_DISPLAY_NAME);
	const label = result.after?.label ?? key;
	if (result.ended.length > 0) {
		// counted with the requests' events; the log has this node's one line for all it ended
		getProcessTrafficEvents().publish({ key, label, node: ctx.getNode().name, nodeType: NODE_DISPLAY_NAME }, events, nowMs);
		countTraffic(store, { key, label }, eventCounts(events));
		ctx.logger.info(`${name}: the API ${label}'s ${result.ended.join(', ')} ended by hand: its requests go again`);
	}
	return { ...(result.after ? trafficView(key, result.after, result.inFlight, nowMs) : { api: key }), ended: result.ended };
}

/** A controller as the store lists it. */
type StoredState = { key: string; data: TrafficData; inFlight: number };

/** What one item asks: the APIs named, and for End Pause or Hold what to end; or why it cannot be read. */
type ItemRequest = { filter: ApiFilter | undefined; end: ResumeRequest } | { error: NodeOperationError };

/** Every item's parameters, read before anything changes: a bad one fails the node then, unless On Error continues. */
function readRequests(ctx: IExecuteFunctions, count: number, resume: boolean): ItemRequest[] {
	return Array.from({ length: count }, (_, i) => {
		try {
			return { filter: apiFilter(ctx, i, resume), end: resume ? endOf(ctx, i) : { pause: false, hold: false } };
		} catch (error) {
			// NodeOperationError hands back an error that already is one, unchanged
			const failure = new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
			if (!ctx.continueOnFail()) throw failure;
			return { error: failure };
		}
	});
}

/** An item that failed, as n8n's nodes hand it on under On Error: Continue (n8n merges the input in on the error output). */
const failedItem = (i: number, error: Error): INodeExecutionData => ({ json: { error: error.message }, pairedItem: { item: i } });

/** Get Metrics: each item's output (get-metrics.ts), the counts and states read once for all. */
async function getMetrics(ctx: IExecuteFunctions, store: OperatorStore, states: StoredState[], requests: ItemRequest[], nowMs: number): Promise<INodeExecutionData[]> {
	let apis;
	try {
		apis = await readApiMetrics(store, states, nowMs);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), `The traffic counts cannot be read: ${(error as Error).message}`);
	}
	return requests.flatMap((request, i) => ('error' in request ? [failedItem(i, request.error)] : metricsOutput(ctx, i, request.filter, apis, states)));
}

export async function executeTrafficControl(ctx: IExecuteFunctions, runtime: Runtime, memoryStore: OperatorStore): Promise<INodeExecutionData[][]> {
	const operation = ctx.getNodeParameter('operation', 0, 'getState') as string;
	// before and after another node: a node that sends on items never fails for Redis (its store falls back to memory)
	if (operation === 'waitForRoom') return await waitForRoom(ctx, await selectStateStore(ctx, memoryStore, NODE_DISPLAY_NAME, 'with fallback'), runtime, NODE_DISPLAY_NAME);
	if (operation === 'reportOutcome') return await reportOutcome(ctx, runtime);
	if (operation !== 'getState' && operation !== 'resume' && operation !== 'getMetrics') throw new NodeOperationError(ctx.getNode(), `Unknown operation ${JSON.stringify(operation)}`);
	const requests = readRequests(ctx, ctx.getInputData().length, operation === 'resume');
	let store: OperatorStore;
	let states: StoredState[];
	try {
		store = await selectStateStore(ctx, memoryStore, NODE_DISPLAY_NAME, 'no fallback');
		// a Fair Share Key's own limits are kept beside its API's, and are no API of their own
		states = (await store.list(runtime.now())).filter(({ key }) => !isKeyShareKey(key));
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), `The shared state cannot be read: ${(error as Error).message}`);
	}
	if (operation === 'getMetrics') return [await getMetrics(ctx, store, states, requests, runtime.now())];
	// every item's APIs found before any is changed: an API named wrong fails the node with nothing ended
	const found = requests.map((request) => ('error' in request ? [] : states.filter(({ key, data }) => matches(key, data, request.filter))));
	const missing = requests.map((request, i) => ('error' in request || request.filter === undefined || found[i].length > 0 ? undefined : noApiError(ctx, i, request.filter, states)));
	const firstMissing = missing.find((error) => error !== undefined);
	if (firstMissing && operation === 'resume' && !ctx.continueOnFail()) throw firstMissing;
	// Get State finds nothing as n8n's searches do, with no items: the hint says why (once, for the first item)
	if (firstMissing && operation === 'getState') hintNothingFound(ctx, firstMissing);
	const out: INodeExecutionData[] = [];
	for (const [i, request] of requests.entries()) {
		if ('error' in request) {
			out.push(failedItem(i, request.error));
			continue;
		}
		const notFound = operation === 'resume' ? missing[i] : undefined;
		if (notFound) out.push(failedItem(i, notFound));
		for (const { key, data, inFlight } of found[i]) {
			const now = runtime.now();
			const json = operation === 'getState' ? trafficView(key, data, inFlight, now) : await resumeOne(ctx, store, key, now, request.end);
			out.push({ json: json as unknown as INodeExecutionData['json'], pairedItem: { item: i } });
		}
	}
	return [out];
}
