import type { INodeProperties } from 'n8n-workflow';
import { pollProperties, baseDelayProperty, jitterProperty, maxAttemptsProperty, maxDelayProperty, maxServerDelayProperty, obeyServerHintsProperty, retryOnStatusCodesProperty, totalDeadlineProperty } from '../../shared/n8n/retry-parameters';
import { RETRY_DEFAULTS, RETRY_LIMITS, RETRY_PARAMETERS } from '../../shared/core/defaults';
import { defaultsNotice } from '../../shared/n8n/defaults-notice';

/** The retry policy's finer settings: each has a default that applies until it is added. */
const retryOptionsCollection: INodeProperties = {
	displayName: 'Retry Options',
	name: 'retryOptions',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		{
			displayName: 'Attempt Timeout (Ms)',
			name: 'attemptTimeout',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: RETRY_LIMITS.maxDelayMs },
			default: RETRY_DEFAULTS.attemptTimeoutMs,
			description: 'How long one attempt may take, from connecting to the last byte of the response. A timed-out attempt counts as a transient failure. 0 means no limit.',
		},
		baseDelayProperty,
		{
			displayName: 'Follow Asynchronous Operations',
			name: 'followAsyncOperations',
			type: 'boolean',
			default: false,
			description:
				"Whether a 202 Accepted with an Operation-Location, Azure-AsyncOperation or Location header is followed: its status URL is polled (GET) until the operation ends, then the item is the operation's result (the resource it names, or the last status answer). A failed or canceled operation goes to the error output. Credentials go to the status URL only on the request's own origin (see Send Credentials on Cross-Origin Redirect).",
		},
		{
			displayName: 'Header Name for Idempotency Key',
			name: 'idempotencyHeaderName',
			type: 'string',
			default: RETRY_DEFAULTS.idempotencyHeader,
			description: 'Stripe, Adyen, PayPal (PayPal-Request-Id) and others name it differently',
		},
		jitterProperty,
		maxDelayProperty,
		...pollProperties.filter((p) => p.name === 'maxPollInterval'),
		maxServerDelayProperty(
			RETRY_DEFAULTS.maxServerDelayMs,
			'The longest Retry-After or rate-limit reset the node waits for. When the server asks for more, the item goes to the error output with retryAfterMs and retryAt, for a Backoff Delay node to wait it out.',
		),
		obeyServerHintsProperty,
		...pollProperties.filter((p) => p.name !== 'maxPollInterval'),
		{
			displayName: 'Read Rate-Limit Headers',
			name: 'readRateLimitHeaders',
			type: 'boolean',
			default: true,
			description: 'Whether to read X-RateLimit-Retry-After, and RateLimit, RateLimit-Reset, X-RateLimit-Reset and x-ratelimit-reset-* on a 429 or when a remaining counter is 0, when there is no Retry-After',
		},
		{
			displayName: 'Retry Non-Idempotent Requests',
			name: 'allowUnsafeRetries',
			type: 'boolean',
			default: false,
			description: 'Whether to retry POST and PATCH without an idempotency key. Only for APIs that tolerate duplicates: a retried payment may be charged twice.',
		},
		{
			displayName: 'Retry Story',
			name: 'retryStory',
			type: 'options',
			options: [
				{ name: 'On Failed Items', value: 'failedItems', description: 'Failed items carry their story; a success item is exactly HTTP Request\'s' },
				{ name: 'On Every Item', value: 'everyItem', description: 'Every item carries its story, successes included' },
				{ name: 'Off', value: 'off', description: 'No item carries a story (the output panel\'s hint and the logs still tell of retries)' },
			],
			default: RETRY_DEFAULTS.story,
			description: 'Which items carry the retry story (attempts, waits, why it stopped) in Retry Story Field',
		},
		{
			displayName: 'Retry Story Field',
			name: 'retryStoryField',
			type: 'string',
			default: RETRY_DEFAULTS.storyField,
			description: 'Field that receives the retry story of the items Retry Story names. Empty: no story.',
		},
		{
			displayName: 'Retry When Body Is Not JSON',
			name: 'retryNotJson',
			type: 'boolean',
			default: false,
			description:
				'Whether a 2xx answer whose body is not JSON (a proxy\'s HTML page, an empty body) is retried as a transient failure (code ENOTJSON) instead of failing the item. Only with Options > Response > Response Format: JSON.',
		},
		totalDeadlineProperty(
			RETRY_DEFAULTS.totalDeadlineMs,
			"Bound on all attempts and waits of one item, counted from its arrival at this node (Backoff Delay counts from the item's first failure). No retry starts that would begin after it. A wait in line for Rate Limit, the pace or the token budget does not count: a bulk job is not failing while it waits its turn. 0 means no deadline.",
		),
	],
};

/** The retry policy: the reason this node exists. Defaults are justified in the README. */
export const retryProperties: INodeProperties[] = [
	{
		displayName:
			'Each item is retried on its own: an item that succeeded is never sent again. Only transient failures are retried (network errors, timeouts and the status codes below), with exponential backoff and jitter, and never earlier than a Retry-After header asks. Turn off the node setting "Retry On Fail" when you use this node.',
		name: 'retryNotice',
		type: 'notice',
		default: '',
	},
	maxAttemptsProperty,
	retryOnStatusCodesProperty,
	{
		displayName: RETRY_PARAMETERS.retryWhen.displayName,
		name: RETRY_PARAMETERS.retryWhen.name,
		type: 'string',
		default: '',
		placeholder: '={{ $response.body.status === "running" }}',
		hint: 'Use expression mode and $response to access response data',
		description:
			'Polling: an expression evaluated on each 2xx answer, true while the job is not done (e.g. {{ ["queued", "running"].includes($response.body.status) }}). Such an answer is asked again after the server\'s Retry-After or the poll interval (Retry Options), until the expression is false or Total Deadline passes. It counts neither against the API\'s health nor against Max Attempts. Empty: every 2xx answer is done.',
	},
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKeyMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Off', value: 'off', description: 'Send no key. POST and PATCH are then only retried when the request never reached the server.' },
			{ name: 'Generate', value: 'generate', description: 'A UUID per item, sent unchanged on every attempt of that item: random, or derived from the item so that a re-run sends the same key' },
			{ name: 'From Expression', value: 'expression', description: 'A key you compute from the item, for example the order ID, so a re-run of the workflow reuses it too' },
		],
		default: 'off',
		description: 'A key that lets the API recognise a repeated request and perform it only once, which makes retrying POST and PATCH safe',
	},
	{
		displayName: 'Key Based On',
		name: 'generatedKeyBasis',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { idempotencyKeyMode: ['generate'] } },
		options: [
			{
				name: 'Random (New on Every Run)',
				value: 'random',
				description: 'A random UUID, kept through the retries of the item and when it comes back to this node after a failed pass. A re-run of the workflow or n8n\'s Retry execution sends a new key.',
			},
			{
				name: 'Item Data (Same on Every Run)',
				value: 'itemData',
				description: "A UUID hashed from the workflow, this node and the item's JSON: a re-run, Retry execution or a replay of the same item sends the same key",
			},
			{
				name: 'Selected Fields (Same on Every Run)',
				value: 'fields',
				description: 'A UUID hashed from the workflow, this node and the fields you list (the order ID, say): the same values send the same key',
			},
		],
		default: 'random',
		description: 'Whether a key survives a re-run of the same input. Only the hash is sent: the data itself never appears in the key.',
	},
	{
		displayName: 'Fields to Hash',
		name: 'keyFields',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. orderId, customer.email',
		displayOptions: { show: { idempotencyKeyMode: ['generate'], generatedKeyBasis: ['fields'] } },
		description: 'Comma-separated paths, such as orderId, customer.email or lines[0].sku. Every item must have them. List what tells two requests apart: items with the same values get the same key.',
	},
	{
		displayName:
			'Items with the same data get the same key, and the API performs only the first of them for as long as it remembers keys (Stripe: 24 hours). Within one run the node refuses such an item, naming both. Choose Random when two equal items can be two real requests (a reminder sent every day).',
		name: 'derivedKeyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { idempotencyKeyMode: ['generate'], generatedKeyBasis: ['itemData', 'fields'] } },
	},
	{
		displayName: 'Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		required: true,
		placeholder: '={{ "order-" + $json.orderId }}',
		displayOptions: { show: { idempotencyKeyMode: ['expression'] } },
		description: 'Non-empty, at most 255 printable ASCII characters',
	},
	{
		displayName:
			'POST and PATCH are not idempotent: without an idempotency key they are retried only when the request provably never reached the server (connection refused, DNS failure). A timeout or a dropped connection goes to the error output instead, because the server may have done the work.',
		name: 'unsafeMethodNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { method: ['POST', 'PATCH'], idempotencyKeyMode: ['off'] } },
	},
	defaultsNotice(retryOptionsCollection, ['baseDelay', 'maxDelay', 'jitter', 'attemptTimeout', 'totalDeadline', 'maxServerDelay', 'obeyServerHints', 'readRateLimitHeaders', 'retryStory', 'retryStoryField']),
	retryOptionsCollection,
];
