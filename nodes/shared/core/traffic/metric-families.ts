/**
 * The traffic controllers' metrics: every family's name, type, help and labels, in one table, read
 * from two sources per API: the counts (traffic-counts.ts: a process's, or the fleet's in Redis)
 * and the state the store keeps now (the operator's view, operator.ts). The same table makes the
 * Prometheus families (prometheus-text.ts writes them) and the items of Traffic Control's Get
 * Metrics, so that both say the same under the same names. docs/metrics.md lists them and says why
 * they are named so: `resilient_http_` and OpenTelemetry's HTTP client names where one exists
 * (`http.client.active_requests`, `http.request.resend_count`, `http.response.status_code`,
 * `error.type`), resilience4j's shape elsewhere (a counter per kind of call, a state gauge of 0 or 1
 * per state), base units (seconds), `_total` on counters.
 *
 * Every series carries `api` (the host, or the scope, as Get State's `label`) and `api_key` (the
 * controller's key: two credentials of one host are two controllers). A counter with a known set
 * of label values is written for each, 0 included, so that rate() sees its first increase.
 */
import type { TrafficView } from './types';
import { COUNTERS, fieldOf, type Counter, type Counts } from './traffic-counts';
import type { MetricFamily, Sample } from './prometheus-text';

/** One API as the metrics read it: its counts, and its state when the store still keeps one. */
export interface ApiMetrics {
	key: string;
	label: string;
	counts: Counts;
	view: TrafficView | undefined;
}

interface CounterFamily {
	name: string;
	help: string;
	counter: Counter;
	/** Its label, and the values it always has (written at 0 until counted); open: only those counted. */
	label?: { name: string; values: readonly string[] | 'open' };
	/** The count is in ms, the metric in seconds. */
	ms?: true;
	/** The field of Get Metrics' item. */
	item: string;
}

const WAIT_REASONS = ['paused', 'held', 'window', 'pace', 'budget', 'tokens'] as const;

const COUNTER_FAMILIES: readonly CounterFamily[] = [
	{ name: 'resilient_http_client_requests_total', help: 'Requests sent through the API\'s traffic controller, by kind: an item\'s first, a resend after a failure, a poll (Retry When, asynchronous operations).', counter: COUNTERS.requests, label: { name: 'kind', values: ['first', 'resend', 'poll'] }, item: 'requests' },
	{ name: 'resilient_http_client_request_resend_count_total', help: 'Resends (OpenTelemetry http.request.resend_count, summed), by why: the previous attempt\'s failure (a 429, a 5xx, another status, a network error, a timeout), or loop (an item back from a Backoff Delay loop).', counter: COUNTERS.resends, label: { name: 'reason', values: ['throttled', 'server_error', 'client_error', 'network', 'timeout', 'loop'] }, item: 'resends' },
	{ name: 'resilient_http_client_responses_total', help: 'Answers, by HTTP status code.', counter: COUNTERS.responses, label: { name: 'http_response_status_code', values: 'open' }, item: 'responses' },
	{ name: 'resilient_http_client_request_errors_total', help: 'Attempts that got no answer, by error type: timeout, network.', counter: COUNTERS.errors, label: { name: 'error_type', values: ['timeout', 'network'] }, item: 'errors' },
	{ name: 'resilient_http_traffic_waits_total', help: 'Requests that waited at the traffic controller before they were sent, by reason (a request that waited for two reasons counts under each).', counter: COUNTERS.waits, label: { name: 'reason', values: WAIT_REASONS }, item: 'waits' },
	{ name: 'resilient_http_traffic_wait_seconds_total', help: 'Time requests waited at the traffic controller, by reason.', counter: COUNTERS.waitMs, label: { name: 'reason', values: WAIT_REASONS }, ms: true, item: 'waitSeconds' },
	{ name: 'resilient_http_traffic_stops_total', help: 'Items that left unsent because what they waited for came too late, by stop reason (as the retry story says it).', counter: COUNTERS.stops, label: { name: 'reason', values: ['api-held', 'retry-after-too-long', 'retry-budget-exhausted', 'deadline-exceeded'] }, item: 'stops' },
	{ name: 'resilient_http_traffic_pauses_total', help: 'Pauses that began: the API (or one of its rate-limit buckets) asked to wait, or its quota was spent.', counter: COUNTERS.pauses, item: 'pauses' },
	{ name: 'resilient_http_traffic_pause_ends_total', help: 'Pauses that ended, by how: its time passed, a probe got through, the quota was refilled, by hand.', counter: COUNTERS.pauseEnds, label: { name: 'how', values: ['time', 'probe', 'refilled', 'hand'] }, item: 'pauseEnds' },
	{ name: 'resilient_http_traffic_holds_total', help: 'Outage holds that began (the API looked down).', counter: COUNTERS.holds, item: 'holds' },
	{ name: 'resilient_http_traffic_recoveries_total', help: 'Outage holds that ended: the API answered again, or the hold was ended by hand.', counter: COUNTERS.recoveries, item: 'recoveries' },
	{ name: 'resilient_http_traffic_window_decreases_total', help: 'Times the window of requests in flight was made smaller (a throttle, an overload, a timeout).', counter: COUNTERS.windowDecreases, item: 'windowDecreases' },
	{ name: 'resilient_http_traffic_paces_learned_total', help: 'Times a pace was learned from throttling.', counter: COUNTERS.pacesLearned, item: 'pacesLearned' },
];

type GaugeValues = Array<[labelValue: string | undefined, value: number]>;

interface GaugeFamily {
	name: string;
	help: string;
	label?: string;
	/** The gauge's values from the API's state now (none: the state does not say it). */
	read(view: TrafficView): GaugeValues;
}

const seconds = (iso: string | null | undefined): number | undefined => (iso ? Date.parse(iso) / 1000 : undefined);
const one = (value: number | null | undefined): GaugeValues => (value === null || value === undefined ? [] : [[undefined, value]]);

const GAUGE_FAMILIES: readonly GaugeFamily[] = [
	{ name: 'resilient_http_traffic_paused', help: '1 while the API is paused (the whole API; a rate-limit bucket\'s pause shows in resilient_http_traffic_bucket_remaining), else 0.', read: (v) => [[undefined, v.paused && v.paused.bucket === undefined ? 1 : 0]] },
	{ name: 'resilient_http_traffic_pause_end_timestamp_seconds', help: 'When the API\'s pause ends (Unix time), while it is paused.', read: (v) => one(v.paused && v.paused.bucket === undefined ? seconds(v.paused.until) : undefined) },
	{ name: 'resilient_http_traffic_hold_state', help: 'The outage hold\'s state: 1 for the state it is in (closed: requests go; open: they wait for a probe; half_open: a probe is out), 0 for the others.', label: 'state', read: (v) => (['closed', 'open', 'half_open'] as const).map((state) => [state, (v.held ? v.held.state.replace('-', '_') : 'closed') === state ? 1 : 0]) },
	{ name: 'resilient_http_traffic_window_limit', help: 'The window: how many requests may be in flight to the API at once, as learned (a node\'s Max Items in Flight caps it).', read: (v) => one(v.window?.size) },
	{ name: 'resilient_http_client_active_requests', help: 'Requests in flight to the API now (OpenTelemetry http.client.active_requests), as the store counts them.', read: (v) => one(v.window?.inFlight) },
	{ name: 'resilient_http_traffic_pace_requests_per_second', help: 'The pace learned from throttling, requests per second, while one is in force.', read: (v) => one(v.pace.learnedPerSecond) },
	{ name: 'resilient_http_traffic_budget_first_attempts', help: 'First attempts counted in the retry budget\'s window.', read: (v) => one(v.budget?.firstAttempts) },
	{ name: 'resilient_http_traffic_budget_retries', help: 'Retries after errors counted in the retry budget\'s window.', read: (v) => one(v.budget?.retries) },
	{ name: 'resilient_http_traffic_budget_window_seconds', help: 'The retry budget\'s window.', read: (v) => one(v.budget ? v.budget.windowMs / 1000 : undefined) },
	{ name: 'resilient_http_traffic_bucket_remaining', help: 'Requests left in a rate-limit bucket the API names (GitHub\'s x-ratelimit-resource, ...), as its last answer said and counted down since.', label: 'bucket', read: (v) => v.buckets.map((b) => [b.bucket, b.remaining]) },
	{ name: 'resilient_http_traffic_last_request_timestamp_seconds', help: 'When a request last passed the API\'s controller (Unix time).', read: (v) => one(seconds(v.lastRequestAt)) },
];

/** Every family's name: docs/metrics.md's table is checked against it. */
export const METRIC_NAMES: readonly string[] = [...COUNTER_FAMILIES, ...GAUGE_FAMILIES].map((f) => f.name);

const apiLabels = (api: ApiMetrics) => ({ api: api.label, api_key: api.key });

/** A counter's values for one API: each known label value (0 until counted), then those counted beyond, sorted. */
function counterValues(family: CounterFamily, counts: Counts): Array<[string | undefined, number]> {
	const scale = family.ms ? 1 / 1000 : 1;
	if (!family.label) return [[undefined, (counts[fieldOf(family.counter)] ?? 0) * scale]];
	const prefix = fieldOf(family.counter, '');
	const counted = Object.keys(counts)
		.filter((field) => field.startsWith(prefix))
		.map((field) => field.slice(prefix.length));
	const known = family.label.values === 'open' ? [] : family.label.values;
	const values = [...known, ...counted.filter((value) => !known.includes(value)).sort()];
	return values.map((value) => [value, (counts[fieldOf(family.counter, value)] ?? 0) * scale]);
}

const sampleOf = (api: ApiMetrics, label: string | undefined, value: [string | undefined, number]): Sample => ({
	labels: { ...apiLabels(api), ...(label !== undefined && value[0] !== undefined ? { [label]: value[0] } : {}) },
	value: value[1],
});

/** The APIs in a stable order: by label, then key. */
const sorted = (apis: readonly ApiMetrics[]) => [...apis].sort((a, b) => (a.label === b.label ? (a.key < b.key ? -1 : 1) : a.label < b.label ? -1 : 1));

/** The families of these APIs: every counter (its samples from the counts), then every gauge (from the states kept). */
export function metricFamilies(apis: readonly ApiMetrics[]): MetricFamily[] {
	const ordered = sorted(apis);
	const counters = COUNTER_FAMILIES.map((family) => ({
		name: family.name,
		type: 'counter' as const,
		help: family.help,
		samples: ordered.flatMap((api) => counterValues(family, api.counts).map((value) => sampleOf(api, family.label?.name, value))),
	}));
	const gauges = GAUGE_FAMILIES.map((family) => ({
		name: family.name,
		type: 'gauge' as const,
		help: family.help,
		samples: ordered.flatMap((api) => (api.view ? family.read(api.view).map((value) => sampleOf(api, family.label, value)) : [])),
	}));
	return [...counters, ...gauges];
}

/** One API as Get Metrics' item: its counts under the families' item names, and the state it has now (Get State's item), or null. */
export function metricsItem(api: ApiMetrics): Record<string, unknown> {
	const item: Record<string, unknown> = { api: api.key, label: api.label };
	for (const family of COUNTER_FAMILIES) {
		const values = counterValues(family, api.counts);
		item[family.item] = family.label ? Object.fromEntries(values) : values[0][1];
	}
	item.state = api.view ?? null;
	return item;
}

/** The APIs' counts and states joined by key: an API may have counts and no state kept any more, or a state and nothing counted yet. */
export function joinApiMetrics(counted: ReadonlyArray<{ key: string; label: string; counts: Counts }>, states: ReadonlyArray<{ key: string; view: TrafficView }>): ApiMetrics[] {
	const apis = new Map<string, ApiMetrics>();
	for (const { key, label, counts } of counted) apis.set(key, { key, label, counts, view: undefined });
	for (const { key, view } of states) {
		const api = apis.get(key);
		if (api) api.view = view;
		else apis.set(key, { key, label: view.label ?? key, counts: {}, view });
	}
	return [...apis.values()];
}
