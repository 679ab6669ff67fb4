/**
 * The controllers' metrics: what a request, an answer and an event count (traffic-counts.ts), the
 * families made of the counts and the state (metric-families.ts), and their text
 * (prometheus-text.ts): escaping, one block per family, counters that only grow, gauges that say
 * the state, and promtool's own parser and linter on the text.
 */
import type { AttemptFailure } from '../../../nodes/shared/core/classify';
import { metricFamilies, metricsItem, joinApiMetrics, METRIC_NAMES, type ApiMetrics } from '../../../nodes/shared/core/traffic/metric-families';
import { escapeLabelValue, formatPrometheusText, type MetricFamily } from '../../../nodes/shared/core/traffic/prometheus-text';
import { eventCounts, gateCounts, resultCounts, TrafficCounts, type Counts } from '../../../nodes/shared/core/traffic/traffic-counts';
import type { TrafficView } from '../../../nodes/shared/core/traffic/types';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promtoolAvailable, promtoolCheckExpressions, promtoolCheckMetrics, samplesOf } from '../../support/promtool';

/** The text's samples by series (`name{labels}`), and the order the families' blocks came in. */
function parse(text: string): { samples: Map<string, number>; blocks: string[] } {
	const blocks = [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);
	return { samples: samplesOf(text), blocks };
}

const throttled: AttemptFailure = { kind: 'status', status: 429, message: 'Too Many Requests', reachedServer: 'refused', transient: true };
const unavailable: AttemptFailure = { kind: 'status', status: 503, message: 'Service Unavailable', reachedServer: 'yes', transient: true };
const timeout: AttemptFailure = { kind: 'timeout', code: 'ETIMEDOUT', message: 'timeout', reachedServer: 'maybe', transient: true };

const VIEW: TrafficView = {
	api: 'api:abc',
	label: 'api.example.com',
	paused: { until: '2026-12-05T12:00:30.000Z', by: 'retry-after' },
	buckets: [{ bucket: 'search', remaining: 3, resetAt: '2026-12-05T12:01:00.000Z', spent: false }],
	held: { state: 'half-open', nextProbeAt: null, openings: 2 },
	window: { size: 8, inFlight: 3, slowStart: false },
	pace: { learnedPerSecond: 2.5, nextAt: null },
	budget: { firstAttempts: 40, retries: 4, windowMs: 60_000 },
	tokens: null,
	lastRequestAt: '2026-12-05T12:00:00.000Z',
};

describe('what a request counts', () => {
	const go = { go: true, waits: {} };
	it('an item first request, a resend by the failure before it, a poll, a loop', () => {
		expect(gateCounts({ attempt: 1, last: undefined, loopRetry: false }, go)).toEqual({ 'req:first': 1 });
		expect(gateCounts({ attempt: 2, last: throttled, loopRetry: false }, go)).toEqual({ 'req:resend': 1, 'resend:throttled': 1 });
		expect(gateCounts({ attempt: 2, last: unavailable, loopRetry: false }, go)).toEqual({ 'req:resend': 1, 'resend:server_error': 1 });
		expect(gateCounts({ attempt: 3, last: { ...unavailable, status: 408 }, loopRetry: true }, go)).toEqual({ 'req:resend': 1, 'resend:client_error': 1 });
		expect(gateCounts({ attempt: 2, last: timeout, loopRetry: false }, go)).toEqual({ 'req:resend': 1, 'resend:timeout': 1 });
		expect(gateCounts({ attempt: 2, last: { ...unavailable, status: 200, notYet: true }, loopRetry: false }, go)).toEqual({ 'req:poll': 1 });
		expect(gateCounts({ attempt: 1, last: undefined, loopRetry: true }, go)).toEqual({ 'req:resend': 1, 'resend:loop': 1 });
	});

	it('its waits by reason (once each, and the time), or the stop it left with instead of a request', () => {
		expect(gateCounts({ attempt: 1, last: undefined, loopRetry: false }, { go: true, waits: { paused: 1_500.4, window: 20 } })).toEqual({ 'req:first': 1, 'wait:paused': 1, 'waitms:paused': 1_500, 'wait:window': 1, 'waitms:window': 20 });
		expect(gateCounts({ attempt: 2, last: unavailable, loopRetry: false }, { go: false, stop: 'api-held', waits: { held: 2_000 } })).toEqual({ 'wait:held': 1, 'waitms:held': 2_000, 'stop:api-held': 1 });
		expect(gateCounts({ attempt: 1, last: undefined, loopRetry: false }, { go: false, stop: 'canceled', waits: {} })).toEqual({});
	});

	it('its answer by status, or why there was none', () => {
		expect(resultCounts({ ok: true, status: 200 })).toEqual({ 'status:200': 1 });
		expect(resultCounts({ ok: false, failure: throttled })).toEqual({ 'status:429': 1 });
		expect(resultCounts({ ok: false, failure: timeout })).toEqual({ 'err:timeout': 1 });
		expect(resultCounts({ ok: false, failure: { kind: 'network', code: 'ECONNRESET', message: 'reset', reachedServer: 'maybe', transient: true } })).toEqual({ 'err:network': 1 });
	});

	it("the controller's events; a hold ended by hand is a recovery, not a pause's end", () => {
		const counts = eventCounts([
			{ kind: 'paused', until: 1, by: 'retry-after' },
			{ kind: 'paused', until: 2, by: 'quota', bucket: 'search' },
			{ kind: 'resumed', by: 'retry-after', how: 'time' },
			{ kind: 'resumed', by: 'outage hold', how: 'hand' },
			{ kind: 'held', nextProbeAt: 5, change: {} as never },
			{ kind: 'recovered', change: {} as never },
			{ kind: 'window', decrease: { from: 10, to: 5 } },
			{ kind: 'rate-learned', rps: 3 },
		]);
		expect(counts).toEqual({ paused: 2, 'resumed:time': 1, recovered: 2, held: 1, window: 1, pace: 1 });
	});
});

describe('the counts of a process', () => {
	it('add up per API, under the label last seen; take hands them over and keeps none', () => {
		const counts = new TrafficCounts();
		counts.add('api:1', 'a.example', { 'req:first': 1 });
		counts.add('api:1', 'a.example:8080', { 'req:first': 2, 'status:200': 3 });
		counts.add('api:2', 'b.example', {});
		expect(counts.all()).toEqual([{ key: 'api:1', label: 'a.example:8080', counts: { 'req:first': 3, 'status:200': 3 } }]);
		expect(counts.take()).toHaveLength(1);
		expect(counts.size).toBe(0);
	});

	it('keep at most maxApis, forgetting the one counted least recently', () => {
		const counts = new TrafficCounts(2);
		counts.add('api:1', 'a', { paused: 1 });
		counts.add('api:2', 'b', { paused: 1 });
		counts.add('api:1', 'a', { paused: 1 });
		counts.add('api:3', 'c', { paused: 1 });
		expect(counts.all().map((a) => a.key)).toEqual(['api:1', 'api:3']);
	});
});

/** One API's metrics; `view` null: the store keeps no state of it any more. */
const api = (counts: Counts, view: TrafficView | null = VIEW, key = 'api:abc', label = 'api.example.com'): ApiMetrics => ({ key, label, counts, view: view ?? undefined });

describe('the Prometheus text', () => {
	it('escapes label values (backslash, quote, newline) and HELP texts (backslash, newline)', () => {
		expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
		const text = formatPrometheusText([{ name: 'x_total', type: 'counter', help: 'one\\two\nthree "q"', samples: [{ labels: { api: 'its "scope"\\\n' }, value: 1 }] }]);
		expect(text).toBe('# HELP x_total one\\\\two\\nthree "q"\n# TYPE x_total counter\nx_total{api="its \\"scope\\"\\\\\\n"} 1\n');
	});

	it('writes NaN and the infinities as Prometheus reads them, and refuses names it does not allow', () => {
		const family = (name: string, labels: Record<string, string> = {}): MetricFamily => ({ name, type: 'gauge', help: 'h', samples: [{ labels, value: Infinity }, { labels: { a: '1' }, value: -Infinity }, { labels: { a: '2' }, value: NaN }] });
		expect(formatPrometheusText([family('g')])).toContain('g +Inf\ng{a="1"} -Inf\ng{a="2"} NaN\n');
		expect(() => formatPrometheusText([family('1g')])).toThrow(/metric name/);
		expect(() => formatPrometheusText([family('g', { 'a-b': 'x' })])).toThrow(/label name/);
		expect(() => formatPrometheusText([family('g', { __name: 'x' })])).toThrow(/label name/);
		expect(() => formatPrometheusText([family('g'), family('g')])).toThrow(/given twice/);
	});

	it('one block per family, HELP and TYPE once, every series of two APIs in it; names are unique and counters end in _total', () => {
		const text = formatPrometheusText(metricFamilies([api({ 'req:first': 3 }), api({ 'status:429': 2 }, undefined, 'api:def', 'b.example')]));
		const { blocks } = parse(text);
		expect(blocks).toEqual(METRIC_NAMES);
		expect(new Set(METRIC_NAMES).size).toBe(METRIC_NAMES.length);
		const lines = text.split('\n');
		for (const name of METRIC_NAMES) {
			const at = lines.filter((line) => line === `# HELP ${name}` || line.startsWith(`# HELP ${name} `));
			expect(at).toHaveLength(1);
			// a family's samples come right after its TYPE line, together
			const indexes = lines.flatMap((line, i) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `) ? [i] : []));
			if (indexes.length > 0) expect(indexes[indexes.length - 1] - indexes[0]).toBe(indexes.length - 1);
		}
		for (const family of metricFamilies([])) if (family.type === 'counter') expect(family.name).toMatch(/_total$/);
	});

	it('counters: known label values at 0 until counted, never lower after more counts; time in seconds', () => {
		const counts = new TrafficCounts();
		const read = () => parse(formatPrometheusText(metricFamilies(counts.all().map((c) => ({ ...c, view: undefined }))))).samples;
		counts.add('api:abc', 'api.example.com', { 'req:first': 1 });
		const before = read();
		expect(before.get('resilient_http_client_requests_total{api="api.example.com",api_key="api:abc",kind="resend"}')).toBe(0);
		expect(before.get('resilient_http_traffic_pauses_total{api="api.example.com",api_key="api:abc"}')).toBe(0);
		counts.add('api:abc', 'api.example.com', { 'req:resend': 2, 'resend:throttled': 2, 'status:429': 2, 'waitms:paused': 2_500, 'wait:paused': 1, paused: 1 });
		const after = read();
		for (const [series, value] of before) expect(after.get(series)).toBeGreaterThanOrEqual(value);
		expect(after.get('resilient_http_client_request_resend_count_total{api="api.example.com",api_key="api:abc",reason="throttled"}')).toBe(2);
		expect(after.get('resilient_http_client_responses_total{api="api.example.com",api_key="api:abc",http_response_status_code="429"}')).toBe(2);
		expect(after.get('resilient_http_traffic_wait_seconds_total{api="api.example.com",api_key="api:abc",reason="paused"}')).toBe(2.5);
	});

	it('gauges say the state now; an API with counts and no state kept has no gauges', () => {
		const samples = parse(formatPrometheusText(metricFamilies([api({}), api({ 'req:first': 1 }, null, 'api:gone', 'gone.example')]))).samples;
		const of = (name: string, extra = '') => samples.get(`${name}{api="api.example.com",api_key="api:abc"${extra}}`);
		expect(of('resilient_http_traffic_paused')).toBe(1);
		expect(of('resilient_http_traffic_pause_end_timestamp_seconds')).toBe(Date.parse('2026-12-05T12:00:30.000Z') / 1000);
		expect([of('resilient_http_traffic_hold_state', ',state="closed"'), of('resilient_http_traffic_hold_state', ',state="open"'), of('resilient_http_traffic_hold_state', ',state="half_open"')]).toEqual([0, 0, 1]);
		expect(of('resilient_http_traffic_window_limit')).toBe(8);
		expect(of('resilient_http_client_active_requests')).toBe(3);
		expect(of('resilient_http_traffic_pace_requests_per_second')).toBe(2.5);
		expect([of('resilient_http_traffic_budget_first_attempts'), of('resilient_http_traffic_budget_retries'), of('resilient_http_traffic_budget_window_seconds')]).toEqual([40, 4, 60]);
		expect(of('resilient_http_traffic_bucket_remaining', ',bucket="search"')).toBe(3);
		expect([...samples.keys()].filter((series) => series.includes('gone.example') && series.startsWith('resilient_http_traffic_paused'))).toEqual([]);
		const calm = parse(formatPrometheusText(metricFamilies([api({}, { ...VIEW, paused: null, held: null, pace: { learnedPerSecond: null, nextAt: null } })]))).samples;
		expect(calm.get('resilient_http_traffic_paused{api="api.example.com",api_key="api:abc"}')).toBe(0);
		expect(calm.get('resilient_http_traffic_hold_state{api="api.example.com",api_key="api:abc",state="closed"}')).toBe(1);
		expect(calm.has('resilient_http_traffic_pace_requests_per_second{api="api.example.com",api_key="api:abc"}')).toBe(false);
	});

	it('passes promtool check metrics (Prometheus parser and linter), labels that need escaping included', () => {
		if (!promtoolAvailable()) {
			console.warn('skipped: promtool is not installed (Debian package prometheus; RH_REQUIRE_PROMTOOL=1 makes this fail)');
			return;
		}
		const counts = { 'req:first': 5, 'req:resend': 2, 'resend:throttled': 1, 'resend:server_error': 1, 'status:200': 5, 'status:429': 1, 'status:503': 1, 'wait:paused': 1, 'waitms:paused': 1_200, 'stop:api-held': 1, paused: 1, 'resumed:time': 1, held: 1, recovered: 1 };
		const text = formatPrometheusText(metricFamilies([api(counts), api(counts, undefined, 'api:s"c\\o\npe', 'its "scope"\\\n')]));
		expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
		// a scrape before any request: the families, no samples
		expect(promtoolCheckMetrics(formatPrometheusText(metricFamilies([])))).toEqual({ status: 0, output: '' });
		// and it would say so: a counter without _total is linted
		expect(promtoolCheckMetrics('# HELP x A thing.\n# TYPE x counter\nx 1\n').status).not.toBe(0);
	});
});

describe("Get Metrics' item", () => {
	it('the counts under the families item names, with the state now (or null)', () => {
		const item = metricsItem(api({ 'req:first': 2, 'status:200': 2, paused: 1, 'waitms:pace': 500 }));
		expect(item).toMatchObject({ api: 'api:abc', label: 'api.example.com', requests: { first: 2, resend: 0, poll: 0 }, responses: { '200': 2 }, pauses: 1, waitSeconds: { pace: 0.5, paused: 0 }, state: VIEW });
		expect(metricsItem(api({}, null)).state).toBeNull();
	});

	it('joins counts and states by key: counts without a state, a state without counts', () => {
		const joined = joinApiMetrics([{ key: 'api:1', label: 'a', counts: { paused: 1 } }], [{ key: 'api:2', view: { ...VIEW, api: 'api:2', label: null } }]);
		expect(joined).toEqual([
			{ key: 'api:1', label: 'a', counts: { paused: 1 }, view: undefined },
			{ key: 'api:2', label: 'api:2', counts: {}, view: { ...VIEW, api: 'api:2', label: null } },
		]);
	});
});

describe('the docs and the Grafana dashboard', () => {
	const docs = readFileSync(path.join(__dirname, '../../../docs/metrics.md'), 'utf8');
	const dashboard = JSON.parse(readFileSync(path.join(__dirname, '../../../docs/grafana-dashboard.json'), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> };
	const expressions = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));

	it("docs/metrics.md's table has a row for every metric, and no other", () => {
		const rows = [...docs.matchAll(/^\| `(resilient_http_\w+)` \|/gm)].map((match) => match[1]);
		expect(rows).toEqual(METRIC_NAMES);
	});

	it('the dashboard queries only metrics that exist, and each of them', () => {
		const used = new Set(expressions.flatMap((expr) => [...expr.matchAll(/resilient_http_\w+/g)].map((match) => match[0])));
		expect([...used].filter((name) => !METRIC_NAMES.includes(name))).toEqual([]);
		expect(METRIC_NAMES.filter((name) => !used.has(name) && !name.endsWith('_timestamp_seconds') && name !== 'resilient_http_traffic_budget_window_seconds')).toEqual([]);
	});

	it("the dashboard's queries parse as PromQL (promtool check rules)", () => {
		if (!promtoolAvailable()) {
			console.warn('skipped: promtool is not installed (Debian package prometheus; RH_REQUIRE_PROMTOOL=1 makes this fail)');
			return;
		}
		// Grafana's variables, as Grafana fills them in
		const filled = expressions.map((expr) => expr.replace(/\$__rate_interval/g, '1m').replace(/\$api/g, '.*'));
		expect(promtoolCheckExpressions(filled)).toMatchObject({ status: 0 });
		// and it would say so
		expect(promtoolCheckExpressions(['sum by (api) (rate(resilient_http_client_requests_total[1m])']).status).not.toBe(0);
	});
});
