import type { INodeProperties } from 'n8n-workflow';
import { RATE_LIMIT_PER_PROPERTY, trafficNumber } from '../../shared/n8n/traffic-numbers';
import { defaultsNotice } from '../../shared/n8n/defaults-notice';
import { stateStoreProperty } from '../../shared/n8n/state-store-parameter';

/**
 * The traffic controller of each API, shared by every execution (and, with Redis, every worker):
 * pauses when the API asks, holds during outages, paces, learns how much the API takes, and keeps
 * retries to a share of the traffic.
 */
const trafficControlCollection: INodeProperties = {
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
			displayName: 'Fair Share Key',
			name: 'fairShareKey',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.customerId }}',
			description:
				'Items with different values take turns whenever the API makes requests wait (its pace, its requests in flight, a pause): a tenant or customer with thousands of items waiting cannot hold back one with a few. The API\'s limits stay shared by all. Empty: items wait in the order they came.',
		},
		trafficNumber(
			'keyRateLimit',
			'The most requests per second (or per minute, with Rate Limit Per) of each Fair Share Key value, for all executions and workers together, besides the API\'s own limits: for an API that limits each of your customers\' accounts, or to keep a tenant within its share. Needs Fair Share Key. 0: none.',
		),
		trafficNumber(
			'keyMaxInFlight',
			'The most requests of each Fair Share Key value in flight at once, for all executions and workers together, besides the API\'s own limits. Needs Fair Share Key. 0: none.',
		),
		{
			displayName: 'Urgent',
			name: 'urgent',
			type: 'boolean',
			default: false,
			description:
				'Whether the item goes ahead of every item that is not urgent when the API makes requests wait (never beyond its limits). Use an expression to mark some items, e.g. {{ $json.type === "payment" }}.',
		},
		{
			displayName: 'Hold During Outages',
			name: 'breaker',
			type: 'boolean',
			default: true,
			description:
				'Whether requests wait while the API looks down (failures in a row, or a share of failed requests), with single test requests finding out when it is back; then they come back one, two, four at a time. Off: every item retries on its own.',
		},
		trafficNumber('breakerWindow', 'The failed share counts the requests of this last stretch of time'),
		trafficNumber('breakerFailurePercent', 'Or the API counts as down when this share of the requests of the last stretch (Counted Over) failed (0: only failures in a row count)'),
		trafficNumber('breakerConsecutiveFailures', 'The API counts as down after this many failures in a row (network errors, timeouts, 5xx; 0: only the failed share counts)'),
		trafficNumber('breakerBreak', 'How long the requests are held before the first test request (a probe) goes; then one every twice this for the first minute of the outage, and from then on the time doubles after each failed test request'),
		trafficNumber('breakerMaxBreak', 'The time between test requests never grows longer than this'),
		trafficNumber('breakerMinimumCalls', 'The failed share counts only with at least this many requests in the stretch (Counted Over)'),
		trafficNumber(
			'rateLimit',
			"The most requests per second (or per minute, below) to this API, for all executions and workers together, spaced evenly. 0: none; the node still follows the API's own rate-limit headers and throttling.",
		),
		RATE_LIMIT_PER_PROPERTY,
		trafficNumber(
			'tokenLimit',
			"The most tokens per minute to this LLM API, for all executions and workers together: each request's tokens are estimated before it is sent (its prompt's characters and its max_tokens) and it waits until they fit. 0: none; the node still follows the token budget the API states in its headers (OpenAI, Anthropic).",
		),
		{
			displayName: 'Retry Budget',
			name: 'budget',
			type: 'boolean',
			default: true,
			description: 'Whether retries after errors are limited to a share of the requests (first attempts are never limited; retries the API paced with Retry-After are not counted)',
		},
		trafficNumber('budgetWindow', 'The budget counts the requests and retries of this last stretch of time'),
		trafficNumber('budgetPercent', 'Retries after errors may add at most this share to the requests of the last stretch (Counted Over; Google SRE: 10%); beyond it they wait for room'),
		trafficNumber('budgetMinRetries', 'However few the requests, this many retries per stretch (Counted Over) are allowed, so that a workflow with few items can still retry them all'),
	],
};

export const limitsProperties: INodeProperties[] = [
	stateStoreProperty({
		memory: 'For a single n8n process (the usual setup)',
		redis: "For n8n in queue mode with several workers: every API's traffic controller lives in Redis, shared by all workers",
		description: "Where each API's traffic controller is kept (its pause, outage hold, learned pace and retry budget)",
	}),
	defaultsNotice(trafficControlCollection, [
		{ name: 'budget', details: ['budgetPercent', 'budgetMinRetries', 'budgetWindow'] },
		{ name: 'breaker', details: ['breakerConsecutiveFailures', 'breakerFailurePercent', 'breakerMinimumCalls', 'breakerWindow', 'breakerBreak', 'breakerMaxBreak'] },
		'rateLimit',
		'tokenLimit',
	]),
	trafficControlCollection,
];
