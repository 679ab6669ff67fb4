import type { INodeProperties } from 'n8n-workflow';
import { BREAKER_DEFAULTS } from '../../shared/state/breaker';
import { BUDGET_DEFAULTS } from '../../shared/state/budget';

/** The limits shared beyond one item: a retry budget (on by default) and a circuit breaker (optional). */
export const limitsProperties: INodeProperties[] = [
	{
		displayName: 'Retry Budget and Circuit Breaker',
		name: 'sharedLimits',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		description: 'Limits shared by all executions of this workflow, so that an outage does not turn into a retry storm',
		options: [
			{
				displayName: 'Breaker: Break (Ms)',
				name: 'breakerBreak',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: BREAKER_DEFAULTS.breakMs,
				description: 'How long an open breaker refuses requests before one probe is let through; doubles after each failed probe',
			},
			{
				displayName: 'Breaker: Consecutive Failures',
				name: 'breakerConsecutiveFailures',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: BREAKER_DEFAULTS.consecutiveFailures,
				description: 'Opens after this many failures in a row (0: only the failure ratio counts)',
			},
			{
				displayName: 'Breaker: Failure Ratio (%)',
				name: 'breakerFailurePercent',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 100 },
				default: BREAKER_DEFAULTS.failureRatio * 100,
				description: 'Opens when this share of the calls in the window failed (0: only consecutive failures count)',
			},
			{
				displayName: 'Breaker: Max Break (Ms)',
				name: 'breakerMaxBreak',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: BREAKER_DEFAULTS.maxBreakMs,
				description: 'The break never grows longer than this',
			},
			{
				displayName: 'Breaker: Minimum Calls',
				name: 'breakerMinimumCalls',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: BREAKER_DEFAULTS.minimumCalls,
				description: 'The failure ratio counts only with at least this many calls in the window',
			},
			{
				displayName: 'Breaker: Scope',
				name: 'breakerScope',
				type: 'string',
				default: '',
				placeholder: 'e.g. payments-api',
				description: "Empty: one breaker per host (scheme, host and port of the URL), shared by every workflow in this n8n. Any text: one breaker per distinct value.",
			},
			{
				displayName: 'Breaker: Window (Ms)',
				name: 'breakerWindow',
				type: 'number',
				typeOptions: { minValue: 1000 },
				default: BREAKER_DEFAULTS.windowMs,
			},
			{
				displayName: 'Budget: Retries Allowed (% of First Attempts)',
				name: 'budgetPercent',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 1000 },
				default: BUDGET_DEFAULTS.ratio * 100,
				description: 'Retries may add at most this share to the requests of the window (Google SRE: 10%)',
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
				displayName: 'Budget: Scope',
				name: 'budgetScope',
				type: 'string',
				default: '',
				placeholder: 'e.g. {{ $json.tenant }}',
				description:
					'Empty: one budget for this workflow. Any text: one budget per distinct value, shared by every workflow that uses it (split by host or API key, or share across workflows). Values are hashed, never stored or logged.',
			},
			{
				displayName: 'Budget: Window (Ms)',
				name: 'budgetWindow',
				type: 'number',
				typeOptions: { minValue: 1000 },
				default: BUDGET_DEFAULTS.windowMs,
			},
			{
				displayName: 'Circuit Breaker',
				name: 'breaker',
				type: 'boolean',
				default: false,
				description: 'Whether to stop calling a host that is clearly down: requests fail at once while it is open, and one probe finds out when it is back',
			},
			{
				displayName: 'Retry Budget',
				name: 'budget',
				type: 'boolean',
				default: true,
				description: 'Whether retries are limited to a share of the requests (first attempts are never limited)',
			},
		],
	},
];
