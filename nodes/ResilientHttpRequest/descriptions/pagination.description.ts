import type { INodeProperties } from 'n8n-workflow';

/** The largest Max Pages and Interval Between Requests the editor and the runtime (config/pagination-settings.ts) take. */
export const PAGINATION_LIMITS = { maxPages: 1_000_000, intervalMs: 3_600_000 } as const;

/**
 * HTTP Request's Pagination option, with its names, values and defaults, so that a node carrying
 * it keeps it: n8n drops the parameters and options a node does not declare before the node runs,
 * and the editor drops them on save. The expressions are resolved for each page by n8n's own
 * pagination helper (paginate.ts), each page a request for the retry engine.
 */
export const paginationOption: INodeProperties = {
	displayName: 'Pagination',
	name: 'pagination',
	placeholder: 'Add pagination',
	type: 'fixedCollection',
	typeOptions: { multipleValues: false },
	default: { pagination: {} },
	options: [
		{
			displayName: 'Pagination',
			name: 'pagination',
			values: [
				{
					displayName: 'Pagination Mode',
					name: 'paginationMode',
					type: 'options',
					typeOptions: { noDataExpression: true },
					options: [
						{ name: 'Off', value: 'off' },
						{ name: 'Update a Parameter in Each Request', value: 'updateAParameterInEachRequest' },
						{ name: 'Response Contains Next URL', value: 'responseContainsNextURL' },
					],
					default: 'updateAParameterInEachRequest',
					description: 'How the next page is requested. Each page is retried on its own: a 429 or 503 waits and fetches the same page again, keeping the pages fetched before.',
				},
				{
					displayName: 'Next URL',
					name: 'nextURL',
					type: 'string',
					displayOptions: { show: { paginationMode: ['responseContainsNextURL'] } },
					default: '',
					description: 'Should evaluate to the URL of the next page',
				},
				{
					displayName: 'Parameters',
					name: 'parameters',
					type: 'fixedCollection',
					displayOptions: { show: { paginationMode: ['updateAParameterInEachRequest'] } },
					typeOptions: { multipleValues: true, noExpression: true },
					placeholder: 'Add Parameter',
					default: { parameters: [{ type: 'qs', name: '', value: '' }] },
					options: [
						{
							name: 'parameters',
							displayName: 'Parameter',
							values: [
								{
									displayName: 'Type',
									name: 'type',
									type: 'options',
									options: [
										{ name: 'Body', value: 'body' },
										{ name: 'Header', value: 'headers' },
										{ name: 'Query', value: 'qs' },
									],
									default: 'qs',
									description: 'Where the parameter should be set',
								},
								{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'e.g page' },
								{ displayName: 'Value', name: 'value', type: 'string', default: '', hint: 'Use expression mode and $response to access response data' },
							],
						},
					],
				},
				{
					displayName: 'Pagination Complete When',
					name: 'paginationCompleteWhen',
					type: 'options',
					typeOptions: { noDataExpression: true },
					displayOptions: { hide: { paginationMode: ['off'] } },
					options: [
						{ name: 'Response Is Empty', value: 'responseIsEmpty' },
						{ name: 'Receive Specific Status Code(s)', value: 'receiveSpecificStatusCodes' },
						{ name: 'Other', value: 'other' },
					],
					default: 'responseIsEmpty',
					description: 'When should no further requests be made?',
				},
				{
					displayName: 'Status Code(s) when Complete',
					name: 'statusCodesWhenComplete',
					type: 'string',
					typeOptions: { noDataExpression: true },
					displayOptions: { show: { paginationCompleteWhen: ['receiveSpecificStatusCodes'] } },
					default: '',
					description: 'Accepts comma-separated values',
				},
				{
					displayName: 'Complete Expression',
					name: 'completeExpression',
					type: 'string',
					displayOptions: { show: { paginationCompleteWhen: ['other'] } },
					default: '',
					description: 'Should evaluate to true when pagination is complete',
				},
				{
					displayName: 'Limit Pages Fetched',
					name: 'limitPagesFetched',
					type: 'boolean',
					typeOptions: { noDataExpression: true },
					displayOptions: { hide: { paginationMode: ['off'] } },
					default: false,
					noDataExpression: true,
					description: 'Whether the number of requests should be limited',
				},
				{
					displayName: 'Max Pages',
					name: 'maxRequests',
					type: 'number',
					typeOptions: { noDataExpression: true, minValue: 1, maxValue: PAGINATION_LIMITS.maxPages, numberPrecision: 0 },
					displayOptions: { show: { limitPagesFetched: [true] } },
					default: 100,
					description: 'Maximum amount of request to be make',
				},
				{
					displayName: 'Interval Between Requests (Ms)',
					name: 'requestInterval',
					type: 'number',
					displayOptions: { hide: { paginationMode: ['off'] } },
					default: 0,
					description: 'Time in milliseconds to wait between requests',
					hint: 'At 0 no delay will be added',
					typeOptions: { minValue: 0, maxValue: PAGINATION_LIMITS.intervalMs },
				},
			],
		},
	],
};
