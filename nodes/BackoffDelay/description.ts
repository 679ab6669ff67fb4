import type { INodeProperties } from 'n8n-workflow';
import { baseDelayProperty, jitterProperty, maxAttemptsProperty, maxDelayProperty, maxServerDelayProperty, obeyServerHintsProperty, retryOnStatusCodesProperty, totalDeadlineProperty } from '../shared/n8n/retry-parameters';

export const BACKOFF_DEFAULTS = {
	stateField: '_backoff',
	/** Like n8n's Wait node: shorter waits stay in process, longer ones use n8n's waiting state. */
	inProcessWaitLimitMs: 65_000,
	/** This node can wait through n8n's waiting state, so it accepts far longer server waits. */
	maxServerDelayMs: 3_600_000,
} as const;

export const backoffDelayProperties: INodeProperties[] = [
	{
		displayName:
			'Put this node after a request\'s error output and connect "Retry" back to the request. It counts attempts on the item, waits with backoff and jitter (never less than a Retry-After asks), and sends the item to "Give up" when it is done. n8n\'s HTTP Request passes the status but not the response headers on its error output: to honour Retry-After from it, turn on its options "Include Response Headers and Status" and "Never Error".',
		name: 'usageNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Wait', value: 'wait', description: 'Compute the delay, wait it out, then route the items' },
			{ name: 'Compute Only', value: 'computeOnly', description: 'Annotate and route the items without waiting, for use with a Wait node' },
		],
		default: 'wait',
	},
	maxAttemptsProperty,
	{
		displayName: 'Only Retry Transient Failures',
		name: 'onlyTransient',
		type: 'boolean',
		default: true,
		description: 'Whether to send items whose failure cannot succeed later (a 400, 401, 404, an unknown host) straight to Give up',
	},
	{ ...retryOnStatusCodesProperty, displayOptions: { show: { onlyTransient: [true] } } },
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			baseDelayProperty,
			{
				displayName: 'Backoff Field',
				name: 'stateField',
				type: 'string',
				default: BACKOFF_DEFAULTS.stateField,
				description: 'Field where the node keeps the attempt number and its decision on each item. Keep it on the items through the loop.',
			},
			{
				displayName: 'In-Process Wait Limit (Ms)',
				name: 'inProcessWaitLimit',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: BACKOFF_DEFAULTS.inProcessWaitLimitMs,
				description: "Longer waits put the execution into n8n's waiting state, which survives a restart (n8n checks for due executions every minute)",
			},
			jitterProperty,
			maxDelayProperty,
			maxServerDelayProperty(BACKOFF_DEFAULTS.maxServerDelayMs, 'The longest Retry-After or rate-limit reset to wait for; an item asked to wait longer goes to Give up'),
			obeyServerHintsProperty,
			{
				displayName: 'Server-Requested Wait',
				name: 'serverWait',
				type: 'string',
				default: '',
				placeholder: '={{ $json.headers["retry-after"] }}',
				description:
					'Leave empty to find it on the item (Resilient HTTP Request errors, response headers). Otherwise a number of milliseconds, a Retry-After value (seconds or HTTP-date) or a date.',
			},
			totalDeadlineProperty(
				0,
				"Bound on the whole retry loop of an item, counted from its first failure (this node cannot know when the first attempt started; Resilient HTTP Request counts from there). 0 means none: Max Attempts bounds the loop.",
			),
		],
	},
];
