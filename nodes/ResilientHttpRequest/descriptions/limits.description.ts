import type { INodeProperties } from 'n8n-workflow';
import { HOLD_DEFAULTS } from '../../shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../shared/core/traffic/budget';
import { stateStoreProperty } from '../../shared/n8n/state-store-parameter';

/**
 * The traffic controller of each API, shared by every execution (and, with Redis, every worker):
 * pauses when the API asks, holds during outages, paces, learns how much the API takes, and keeps
 * retries to a share of the traffic. Parameter names are kept from the retry budget and circuit
 * breaker they grew from, so workflows saved with them keep their settings.
 */
export const limitsProperties: INodeProperties[] = [
	stateStoreProperty({
		memory: 'For a single n8n process (the usual setup)',
		redis: "For n8n in queue mode with several workers: every API's traffic controller lives in Redis, shared by all workers",
		description: "Where each API's traffic controller is kept (its pause, outage hold, learned pace and retry budget)",
	}),
	{
		displayName: 'Traffic Control',
		name: 'sharedLimits',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		description:
			'One controller per API (the URL\'s origin and the credential), shared by every execution: when the API asks everyone to wait (Retry-After, a spent quota) or looks down, requests wait instead of failing, and come back gradually',
		options: [
			{
				displayName: 'API Scope',
				name: 'budgetScope',
				type: 'string',
				default: '',
				placeholder: 'e.g. {{ $json.tenant }}',
				description:
					'Empty: one controller per API, told by the URL\'s origin (scheme, host, port) and the credential in use (limits are per key). Any text: one controller per distinct value, shared by every workflow that uses it. Values are hashed, never stored or logged.',
			},
			{
				displayName: 'Budget: Retries Allowed (% of First Attempts)',
				name: 'budgetPercent',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 1000 },
				default: BUDGET_DEFAULTS.ratio * 100,
				description: 'Retries after errors may add at most this share to the requests of the window (Google SRE: 10%); beyond it they wait for room',
			},
			{
				displayName: 'Budget: Retries Always Allowed per Window',
				name: 'budgetMinRetries',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: BUDGET_DEFAULTS.minRetriesPerWindow,
				description: 'So that a workflow with few items can still retry them all',
			},
			{
				displayName: 'Budget: Window (Ms)',
				name: 'budgetWindow',
				type: 'number',
				typeOptions: { minValue: 1000 },
				default: BUDGET_DEFAULTS.windowMs,
			},
			{
				displayName: 'Hold During Outages',
				name: 'breaker',
				type: 'boolean',
				default: true,
				description:
					'Whether requests wait while the API looks down (failures in a row, or a failure ratio), with single probes finding out when it is back; then they come back one, two, four at a time. Off: every item retries on its own.',
			},
			{
				displayName: 'Hold: Consecutive Failures',
				name: 'breakerConsecutiveFailures',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: HOLD_DEFAULTS.consecutiveFailures,
				description: 'The API counts as down after this many failures in a row (network errors, timeouts, 5xx; 0: only the ratio counts)',
			},
			{
				displayName: 'Hold: Failure Ratio (%)',
				name: 'breakerFailurePercent',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 100 },
				default: HOLD_DEFAULTS.failureRatio * 100,
				description: 'Or when this share of the requests in the window failed (0: only failures in a row count)',
			},
			{
				displayName: 'Hold: First Probe After (Ms)',
				name: 'breakerBreak',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: HOLD_DEFAULTS.breakMs,
				description: 'How long the requests are held before the first probe; then a probe every twice this for the first minute of the outage, and from then on the interval doubles after each failed probe',
			},
			{
				displayName: 'Hold: Max Probe Interval (Ms)',
				name: 'breakerMaxBreak',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: HOLD_DEFAULTS.maxBreakMs,
				description: 'The interval between probes never grows longer than this',
			},
			{
				displayName: 'Hold: Minimum Requests',
				name: 'breakerMinimumCalls',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: HOLD_DEFAULTS.minimumCalls,
				description: 'The failure ratio counts only with at least this many requests in the window',
			},
			{
				displayName: 'Hold: Window (Ms)',
				name: 'breakerWindow',
				type: 'number',
				typeOptions: { minValue: 1000 },
				default: HOLD_DEFAULTS.windowMs,
			},
			{
				displayName: 'Rate Limit',
				name: 'rateLimit',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'The most requests per second (or per minute, below) to this API, for all executions and workers together, spaced evenly. 0: none; the node still follows the API\'s own rate-limit headers and throttling.',
			},
			{
				displayName: 'Rate Limit Per',
				name: 'rateLimitPer',
				type: 'options',
				options: [
					{ name: 'Second', value: 'second' },
					{ name: 'Minute', value: 'minute' },
				],
				default: 'second',
			},
			{
				displayName: 'Retry Budget',
				name: 'budget',
				type: 'boolean',
				default: true,
				description: 'Whether retries after errors are limited to a share of the requests (first attempts are never limited; retries the API paced with Retry-After are not counted)',
			},
		],
	},
];
