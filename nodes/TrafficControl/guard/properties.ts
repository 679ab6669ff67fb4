/**
 * The editor's parameters of Wait for Room and Report Outcome: the operations that put any node
 * (n8n's OpenAI, Google Sheets, Notion...) behind an API's traffic controller, before and after it.
 */
import type { INodeProperties } from 'n8n-workflow';
import { DAY_MS, RATE_LIMIT_PER_PROPERTY, trafficNumber } from '../../shared/n8n/traffic-numbers';

export const GUARD_DEFAULTS = {
	/** An item that finds no room within this long fails (Max Wait). */
	maxWaitMs: 300_000,
	/** The node between must report within this long, or its room is given back (Report Within). */
	reportWithinMs: 300_000,
} as const;

const WAIT = { show: { operation: ['waitForRoom'] } };
const REPORT = { show: { operation: ['reportOutcome'] } };

export const guardProperties: INodeProperties[] = [
	{
		displayName:
			'Put this before a node that calls an API (OpenAI, Google Sheets, Notion...) and <b>Report Outcome</b> after it, with the same <b>API Scope</b>. Set that node\'s <b>On Error</b> to <b>Continue</b>. For many items, wrap the three in <b>Loop Over Items</b>: the node sends its items one after another, so a batch goes at the pace it was given room.',
		name: 'waitNotice',
		type: 'notice',
		default: '',
		displayOptions: WAIT,
	},
	{
		displayName: 'API Scope',
		name: 'apiScope',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. openai',
		description:
			'The name of the API the next node calls. Every node that names it shares one traffic controller: Wait for Room and Report Outcome here, and Resilient HTTP Request nodes whose Traffic Control option API Scope is the same text. Values are hashed, never stored or logged.',
		displayOptions: WAIT,
	},
	{
		displayName: 'Options',
		name: 'waitOptions',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: WAIT,
		options: [
			{
				displayName: 'Estimated Tokens',
				name: 'estimatedTokens',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 0 },
				default: 0,
				placeholder: 'e.g. {{ $json.text.length / 4 + 1000 }}',
				description:
					"The tokens the item's call to an LLM API counts against its budget (prompt and most output), for Token Limit. 0: the item's own JSON at 4 characters per token, with no output.",
			},
			{
				displayName: 'Fair Share Key',
				name: 'fairShareKey',
				type: 'string',
				default: '',
				placeholder: 'e.g. {{ $json.customerId }}',
				description: 'Items with different values take turns whenever the API makes requests wait. Empty: items wait in the order they came.',
			},
			{
				displayName: 'Hold During Outages',
				name: 'breaker',
				type: 'boolean',
				default: true,
				description: 'Whether items wait while the API looks down (failures reported in a row), with single test items finding out when it is back',
			},
			{
				displayName: 'Max Wait (Ms)',
				name: 'maxWait',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: DAY_MS },
				default: GUARD_DEFAULTS.maxWaitMs,
				description: "An item that finds no room within this long fails (to the error output with On Error: Continue), with why. A pause the API asked for that ends later fails it at once. A wait in line for Rate Limit or Token Limit does not count: a bulk job is not failing while it waits its turn.",
			},
			trafficNumber('rateLimit', 'The most items per second (or per minute, below) sent on to the API, for all executions and workers together, spaced evenly. 0: none.'),
			RATE_LIMIT_PER_PROPERTY,
			trafficNumber('keyRateLimit', 'The most items per second (or per minute, with Rate Limit Per) of each Fair Share Key value sent on to the API, for all executions and workers together, besides the API\'s own limits. Needs Fair Share Key. 0: none.'),
			{
				displayName: 'Report Within (Ms)',
				name: 'reportWithin',
				type: 'number',
				typeOptions: { minValue: 1000, maxValue: DAY_MS },
				default: GUARD_DEFAULTS.reportWithinMs,
				description: "How long the node after may take: an item not reported by then gives its room back (the node failed the execution, or Report Outcome is missing)",
			},
			{
				displayName: 'Retry Budget',
				name: 'budget',
				type: 'boolean',
				default: true,
				description: 'Whether items that come back through Backoff Delay are limited to a share of the items (Google SRE: 10%)',
			},
			trafficNumber('tokenLimit', "The most tokens per minute to this LLM API, for all executions and workers together: each item's Estimated Tokens wait until they fit. 0: none."),
			{
				displayName: 'Urgent',
				name: 'urgent',
				type: 'boolean',
				default: false,
				description: 'Whether the item goes ahead of every item that is not urgent when the API makes items wait (never beyond its limits)',
			},
		],
	},
	{
		displayName: 'API Scope',
		name: 'apiScope',
		type: 'string',
		default: '',
		placeholder: 'e.g. openai',
		description: "The API Scope of the Wait for Room the items came through. Empty: the one API this execution's items waited for.",
		displayOptions: REPORT,
	},
	{
		displayName: 'Options',
		name: 'reportOptions',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: REPORT,
		options: [
			{
				displayName: 'Server-Requested Wait',
				name: 'serverWait',
				type: 'string',
				default: '',
				placeholder: '={{ $json.headers["retry-after"] }}',
				description: "Leave empty to find it on the item. Otherwise a number of milliseconds, a Retry-After value (seconds or HTTP-date) or a date: every item of the API waits that long.",
			},
			{
				displayName: 'Status Code',
				name: 'statusCode',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 599, numberPrecision: 0 },
				default: 0,
				placeholder: '={{ $json.error.httpCode }}',
				description: "Leave 0 to find it on the item (an error's status, n8n's status messages). Otherwise the HTTP status the item's call got.",
			},
		],
	},
];
