import type { INodeProperties } from 'n8n-workflow';
import { defaultsNotice } from '../../shared/n8n/defaults-notice';
import { paginationOption } from './pagination.description';

/**
 * Max Items in Flight: its default and the limits the editor and the runtime (config/schedule-settings.ts)
 * share. A ceiling still protects an API from an unbounded burst of one execution (HTTP Request has
 * none); the adaptive window gets there only while the API answers well.
 */
export const ITEMS_IN_FLIGHT = { default: 1000, min: 1, max: 10_000 } as const;
/** Items per Batch: -1 is HTTP Request's "off". */
export const ITEMS_PER_BATCH = { min: -1, max: 1_000_000 } as const;
/** The longest Timeout and Batch Interval the runtime takes (numberParameter's default maximum). */
const DAY_MS = 24 * 3600_000;

/** As in HTTP Request. */
export const DEFAULT_MAX_REDIRECTS = 21;
/** No API needs more; the editor and the node reject the same values. */
export const MAX_REDIRECTS_LIMIT = 100;

/** HTTP Request's options, and the limit on items in flight. */
const optionsCollection: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		{
			displayName: 'Adapt Items in Flight',
			name: 'adaptConcurrency',
			type: 'boolean',
			default: true,
			description:
				'Whether to start with 10 items in flight and double while the API answers well, up to Max Items in Flight; a 429, 503 or attempt timeout halves it (like TCP). Off, or with Batching set: always Max Items in Flight.',
		},
		{
			displayName: 'Array Format in Query Parameters',
			name: 'queryParameterArrays',
			type: 'options',
			options: [
				{ name: 'No Brackets', value: 'repeat', description: 'e.g. foo=bar&foo=qux' },
				{ name: 'Brackets Only', value: 'brackets', description: 'e.g. foo[]=bar&foo[]=qux' },
				{ name: 'Brackets with Indices', value: 'indices', description: 'e.g. foo[0]=bar&foo[1]=qux' },
			],
			default: 'brackets',
		},
		{
			displayName: 'Batching',
			name: 'batching',
			placeholder: 'Add Batching',
			type: 'fixedCollection',
			typeOptions: { multipleValues: false },
			default: { batch: {} },
			options: [
				{
					displayName: 'Batching',
					name: 'batch',
					values: [
						{
							displayName: 'Items per Batch',
							name: 'batchSize',
							type: 'number',
							typeOptions: { minValue: ITEMS_PER_BATCH.min, maxValue: ITEMS_PER_BATCH.max, numberPrecision: 0 },
							default: 50,
							description: 'Input will be split in batches to throttle requests. -1 for disabled. 0 will be treated as 1.',
						},
						{
							displayName: 'Batch Interval (ms)',
							name: 'batchInterval',
							type: 'number',
							typeOptions: { minValue: 0, maxValue: DAY_MS },
							default: 1000,
							description: 'Time (in milliseconds) between the starts of two batches. 0 for disabled.',
						},
					],
				},
			],
		},
		{
			displayName: 'Enable WebDAV Methods',
			name: 'webdavMethods',
			type: 'boolean',
			default: false,
			description: 'Whether to add the WebDAV request methods PROPFIND, MKCOL, MOVE, COPY and REPORT to the Method list',
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'allowUnauthorizedCerts',
			type: 'boolean',
			noDataExpression: true,
			default: false,
			description: 'Whether to download the response even if SSL certificate validation is not possible',
		},
		{
			displayName: 'Lowercase Headers',
			name: 'lowercaseHeaders',
			type: 'boolean',
			default: true,
			description: 'Whether to lowercase header names',
		},
		{
			displayName: 'Max Items in Flight',
			name: 'maxConcurrency',
			type: 'number',
			typeOptions: { minValue: ITEMS_IN_FLIGHT.min, maxValue: ITEMS_IN_FLIGHT.max, numberPrecision: 0 },
			default: ITEMS_IN_FLIGHT.default,
			description: 'The most items in progress at once (their requests and retry waits); with Adapt Items in Flight, the ceiling of the window. HTTP Request sends all items at once; a ceiling keeps an API from being hit by every item together.',
		},
		paginationOption,
		{
			displayName: 'Proxy',
			name: 'proxy',
			type: 'string',
			default: '',
			placeholder: 'e.g. http://myproxy:3128',
			description: 'HTTP proxy to use. Credentials in the URL (http://user:pass@host:port) are never written to outputs.',
		},
		{
			displayName: 'Redirects',
			name: 'redirect',
			placeholder: 'Add Redirect',
			type: 'fixedCollection',
			typeOptions: { multipleValues: false },
			default: { redirect: {} },
			options: [
				{
					displayName: 'Redirect',
					name: 'redirect',
					values: [
						{
							displayName: 'Follow Redirects',
							name: 'followRedirects',
							type: 'boolean',
							default: true,
							noDataExpression: true,
							description: 'Whether to follow redirects. Credentials are never sent to another origin than the first request.',
						},
						{
							displayName: 'Max Redirects',
							name: 'maxRedirects',
							type: 'number',
							typeOptions: { minValue: 0, maxValue: MAX_REDIRECTS_LIMIT, numberPrecision: 0 },
							displayOptions: { show: { followRedirects: [true] } },
							default: DEFAULT_MAX_REDIRECTS,
							description: 'Max number of redirects to follow',
						},
					],
				},
			],
		},
		{
			displayName: 'Response',
			name: 'response',
			placeholder: 'Add response',
			type: 'fixedCollection',
			typeOptions: { multipleValues: false },
			default: { response: {} },
			options: [
				{
					displayName: 'Response',
					name: 'response',
					values: [
						{
							displayName: 'Include Response Headers and Status',
							name: 'fullResponse',
							type: 'boolean',
							default: false,
							description: 'Whether to return the full response (headers and response status code) data instead of only the body',
						},
						{
							displayName: 'Never Error',
							name: 'neverError',
							type: 'boolean',
							default: false,
							description: 'Whether to succeed also when the final status code is not 2xx. Retryable statuses are still retried first.',
						},
						{
							displayName: 'Response Format',
							name: 'responseFormat',
							type: 'options',
							noDataExpression: true,
							options: [
								{ name: 'Autodetect', value: 'autodetect' },
								{ name: 'File', value: 'file' },
								{ name: 'JSON', value: 'json' },
								{ name: 'Text', value: 'text' },
							],
							default: 'autodetect',
							description: 'The format in which the data gets returned from the URL',
						},
						{
							displayName: 'Put Output in Field',
							name: 'outputPropertyName',
							type: 'string',
							default: 'data',
							required: true,
							displayOptions: { show: { responseFormat: ['file', 'text'] } },
							description: 'Name of the binary property (File) or JSON field (Text) to which to write the response data',
						},
					],
				},
			],
		},
		{
			displayName: 'Send Credentials on Cross-Origin Redirect',
			name: 'sendCredentialsOnCrossOriginRedirect',
			type: 'boolean',
			default: false,
			description: 'Whether to send credentials, like the "Authorization" header, on redirects to a different origin',
		},
		{
			displayName: 'Timeout',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: DAY_MS, numberPrecision: 0 },
			default: 10000,
			description:
				'Time in ms to wait for the server to send response headers (and start the response body) before aborting the request. Each attempt as a whole is bounded by Attempt Timeout, which must not be shorter.',
		},
	],
};

/** Request options with the names of n8n's HTTP Request node (v4, every one of them), plus the (adaptive) limit on items in flight. */
export const optionsProperties: INodeProperties[] = [
	defaultsNotice(optionsCollection, ['adaptConcurrency', 'maxConcurrency', 'lowercaseHeaders']),
	optionsCollection,
];
