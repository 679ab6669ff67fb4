import type { INodeProperties } from 'n8n-workflow';

/**
 * HTTP Request Tool's *Optimize Response* (n8n-nodes-base HttpRequest/shared/optimizeResponse),
 * with its parameter names and values, shown only on the node's AI tool variant (`@tool`, as
 * HTTP Request shows them). JSON only: n8n's HTML and Text optimizers parse pages with cheerio,
 * jsdom and Readability, which n8n does not lend to community nodes (see README, Decisions).
 */
const OPTIMIZE_RESPONSE: INodeProperties[] = [
	{
		displayName: 'Optimize Response',
		name: 'optimizeResponse',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description: 'Whether to optimize the tool response to reduce the amount of data passed to the LLM, which can lead to better results and lower cost',
	},
	{
		displayName: 'Expected Response Type',
		name: 'responseType',
		type: 'options',
		displayOptions: { show: { optimizeResponse: [true] } },
		options: [{ name: 'JSON', value: 'json', description: "HTTP Request Tool's HTML and Text types are not available in this node" }],
		default: 'json',
	},
	{
		displayName: 'Field Containing Data',
		name: 'dataField',
		type: 'string',
		default: '',
		placeholder: 'e.g. records',
		description: 'Specify the name of the field in the response containing the data',
		hint: 'leave blank to use whole response',
		requiresDataPath: 'single',
		displayOptions: { show: { optimizeResponse: [true], responseType: ['json'] } },
	},
	{
		displayName: 'Include Fields',
		name: 'fieldsToInclude',
		type: 'options',
		description: 'What fields response object should include',
		default: 'all',
		displayOptions: { show: { optimizeResponse: [true], responseType: ['json'] } },
		options: [
			{ name: 'All', value: 'all', description: 'Include all fields' },
			{ name: 'Selected', value: 'selected', description: 'Include only fields specified below' },
			{ name: 'Except', value: 'except', description: 'Exclude fields specified below' },
		],
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'string',
		default: '',
		placeholder: 'e.g. field1,field2',
		description: 'Comma-separated list of the field names. Supports dot notation. You can drag the selected fields from the input panel.',
		requiresDataPath: 'multiple',
		displayOptions: { show: { optimizeResponse: [true], responseType: ['json'] }, hide: { fieldsToInclude: ['all'] } },
	},
];

export const toolProperties: INodeProperties[] = OPTIMIZE_RESPONSE.map((property) => ({
	...property,
	displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, '@tool': [true] } },
}));
