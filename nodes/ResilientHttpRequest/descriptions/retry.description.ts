import type { INodeProperties } from 'n8n-workflow';
import { baseDelayProperty, jitterProperty, maxAttemptsProperty, maxDelayProperty, maxServerDelayProperty, obeyServerHintsProperty, retryOnStatusCodesProperty, totalDeadlineProperty } from '../../shared/n8n/retry-parameters';
import { RETRY_DEFAULTS } from '../../shared/core/defaults';

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
		displayName: 'Idempotency Key',
		name: 'idempotencyKeyMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Off', value: 'off', description: 'Send no key. POST and PATCH are then only retried when the request never reached the server.' },
			{ name: 'Generate', value: 'generate', description: 'A random UUID per item, created once and sent unchanged on every attempt of that item' },
			{ name: 'From Expression', value: 'expression', description: 'A key you compute from the item, for example the order ID, so a re-run of the workflow reuses it too' },
		],
		default: 'off',
		description: 'A key that lets the API recognise a repeated request and perform it only once, which makes retrying POST and PATCH safe',
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
	{
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
				typeOptions: { minValue: 0 },
				default: RETRY_DEFAULTS.attemptTimeoutMs,
				description: 'How long one attempt may take, from connecting to the last byte of the response. A timed-out attempt counts as a transient failure. 0 means no limit.',
			},
			baseDelayProperty,
			{
				displayName: 'Header Name for Idempotency Key',
				name: 'idempotencyHeaderName',
				type: 'string',
				default: RETRY_DEFAULTS.idempotencyHeader,
				description: 'Stripe, Adyen, PayPal (PayPal-Request-Id) and others name it differently',
			},
			jitterProperty,
			maxDelayProperty,
			maxServerDelayProperty(
				RETRY_DEFAULTS.maxServerDelayMs,
				'The longest Retry-After or rate-limit reset the node waits for. When the server asks for more, the item goes to the error output with retryAfterMs and retryAt, for a Backoff Delay node to wait it out.',
			),
			obeyServerHintsProperty,
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
				displayName: 'Retry Story Field',
				name: 'retryStoryField',
				type: 'string',
				default: RETRY_DEFAULTS.storyField,
				description: 'Field that receives the retry story of each item (attempts, delays, why it stopped). Empty: no story.',
			},
			totalDeadlineProperty(
				RETRY_DEFAULTS.totalDeadlineMs,
				"Bound on all attempts and waits of one item, counted from the start of its first attempt in this node (Backoff Delay counts from the item's first failure). No retry starts that would begin after it. 0 means no deadline.",
			),
		],
	},
];
