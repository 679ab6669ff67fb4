import type { INodeProperties } from 'n8n-workflow';
import { pollProperties, baseDelayProperty, jitterProperty, maxAttemptsProperty, maxDelayProperty, maxServerDelayProperty, obeyServerHintsProperty, retryOnStatusCodesProperty, totalDeadlineProperty } from '../shared/n8n/retry-parameters';
import { RETRY_LIMITS } from '../shared/core/defaults';
import { defaultsNotice } from '../shared/n8n/defaults-notice';

export const BACKOFF_DEFAULTS = {
	stateField: '_backoff',
	/** Like n8n's Wait node: shorter waits stay in process, longer ones use n8n's waiting state. */
	inProcessWaitLimitMs: 65_000,
	/** This node can wait through n8n's waiting state, so it accepts far longer server waits. */
	maxServerDelayMs: 3_600_000,
} as const;

/** The loop's finer settings: each has a default that applies until it is added. */
const optionsCollection: INodeProperties = {
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
			typeOptions: { minValue: 0, maxValue: RETRY_LIMITS.maxDelayMs },
			default: BACKOFF_DEFAULTS.inProcessWaitLimitMs,
			description: "Longer waits put the execution into n8n's waiting state, which survives a restart (n8n checks for due executions every minute)",
		},
		jitterProperty,
		maxDelayProperty,
		...pollProperties.filter((p) => p.name === 'maxPollInterval'),
		maxServerDelayProperty(BACKOFF_DEFAULTS.maxServerDelayMs, 'The longest Retry-After or rate-limit reset to wait for; an item asked to wait longer goes to Give up'),
		obeyServerHintsProperty,
		...pollProperties.filter((p) => p.name !== 'maxPollInterval'),
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
			"Bound on the whole loop of an item, counted from its first pass through this node (its first failure; this node cannot know when the first attempt started, Resilient HTTP Request counts from there). 0 means none: Max Attempts bounds a retry loop; Polling Until Done needs a deadline.",
		),
	],
};

export const backoffDelayProperties: INodeProperties[] = [
	{
		displayName: 'Loop For',
		name: 'loopFor',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Retrying Failures', value: 'failures', description: "Items come from a request's error output: retry the transient failures with backoff" },
			{
				name: 'Polling Until Done',
				value: 'polling',
				description: "Items come from an IF's \"not done\" branch: every item is a job not done yet, asked about again at the polling pace (or the Retry-After it carries) until Total Deadline",
			},
		],
		default: 'failures',
	},
	{
		displayName:
			'Put this node after a request\'s error output and connect "Retry" back to the request. It counts attempts on the item, waits with backoff and jitter (never less than a Retry-After asks), and sends the item to "Give up" when it is done. n8n\'s HTTP Request passes the status but not the response headers on its error output: to honour Retry-After from it, turn on its options "Include Response Headers and Status" and "Never Error".',
		name: 'usageNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { loopFor: ['failures'] } },
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
	{
		displayName:
			'Put this node on the "not done" branch of an IF behind the request that asks for the job\'s status, and connect "Retry" back to that request. Options > Total Deadline (required) bounds the polling; the item then goes to Give up with stoppedBecause "not-done-by-deadline".',
		name: 'pollingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { loopFor: ['polling'] } },
	},
	{ ...maxAttemptsProperty, displayOptions: { show: { loopFor: ['failures'] } } },
	{
		displayName: 'Only Retry Transient Failures',
		name: 'onlyTransient',
		type: 'boolean',
		default: true,
		displayOptions: { show: { loopFor: ['failures'] } },
		description: 'Whether to send items whose failure cannot succeed later (a 400, 401, 404, an unknown host) straight to Give up',
	},
	{ ...retryOnStatusCodesProperty, displayOptions: { show: { onlyTransient: [true], loopFor: ['failures'] } } },
	defaultsNotice(optionsCollection, ['baseDelay', 'maxDelay', 'jitter', 'maxServerDelay', 'inProcessWaitLimit', 'totalDeadline', 'obeyServerHints', 'stateField']),
	optionsCollection,
];
