import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { authenticationProperties } from './auth.description';

/** HTTP Request's WebDAV methods: listed once Options > Enable WebDAV Methods is on (a chosen one stays listed). */
const WEBDAV_METHODS = ['COPY', 'MKCOL', 'MOVE', 'PROPFIND', 'REPORT'] as const;
const webdavMethodOptions: INodePropertyOptions[] = WEBDAV_METHODS.flatMap((method) => [
	{ name: method, value: method, displayOptions: { show: { 'options.webdavMethods': [true] } } },
	{ name: method, value: method, displayOptions: { hide: { method: [{ _cnd: { not: method } }], 'options.webdavMethods': [true] } } },
]);

function keyValueCollection(name: string, displayName: string, itemName: string, show: Record<string, unknown[]>): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		displayOptions: { show: show as never },
		typeOptions: { multipleValues: true },
		placeholder: `Add ${itemName}`,
		default: { parameters: [{ name: '', value: '' }] },
		options: [
			{
				name: 'parameters',
				displayName: itemName,
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	};
}

/** Method, URL, authentication, query, headers and body: the vocabulary of n8n's HTTP Request node (v4). */
export const requestProperties: INodeProperties[] = [
	// n8n's editor renders this as HTTP Request's "Import cURL" button, for any node: the command's
	// method, URL, query, headers and body land in the parameters of the same names. It holds no value.
	{ displayName: '', name: 'curlImport', type: 'curlImport', default: '' },
	{
		displayName: 'Method',
		name: 'method',
		type: 'options',
		options: [...['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'].map((m) => ({ name: m, value: m })), ...webdavMethodOptions],
		default: 'GET',
		description: 'The request method to use',
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		placeholder: 'https://api.example.com/v1/orders',
		description: 'The URL to make the request to',
		required: true,
	},
	...authenticationProperties,
	{
		displayName: 'Send Query Parameters',
		name: 'sendQuery',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description: 'Whether the request has query params or not',
	},
	{
		displayName: 'Specify Query Parameters',
		name: 'specifyQuery',
		type: 'options',
		displayOptions: { show: { sendQuery: [true] } },
		options: [
			{ name: 'Using Fields Below', value: 'keypair' },
			{ name: 'Using JSON', value: 'json' },
		],
		default: 'keypair',
	},
	keyValueCollection('queryParameters', 'Query Parameters', 'Parameter', { sendQuery: [true], specifyQuery: ['keypair'] }),
	{
		displayName: 'JSON',
		name: 'jsonQuery',
		type: 'json',
		displayOptions: { show: { sendQuery: [true], specifyQuery: ['json'] } },
		default: '',
	},
	{
		displayName: 'Send Headers',
		name: 'sendHeaders',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description: 'Whether the request has headers or not',
	},
	{
		displayName: 'Specify Headers',
		name: 'specifyHeaders',
		type: 'options',
		displayOptions: { show: { sendHeaders: [true] } },
		options: [
			{ name: 'Using Fields Below', value: 'keypair' },
			{ name: 'Using JSON', value: 'json' },
		],
		default: 'keypair',
	},
	keyValueCollection('headerParameters', 'Header Parameters', 'Parameter', { sendHeaders: [true], specifyHeaders: ['keypair'] }),
	{
		displayName: 'JSON',
		name: 'jsonHeaders',
		type: 'json',
		displayOptions: { show: { sendHeaders: [true], specifyHeaders: ['json'] } },
		default: '',
	},
	{
		displayName: 'Send Body',
		name: 'sendBody',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description: 'Whether the request has a body or not',
	},
	{
		displayName: 'Body Content Type',
		name: 'contentType',
		type: 'options',
		displayOptions: { show: { sendBody: [true] } },
		options: [
			{ name: 'Form URL Encoded', value: 'form-urlencoded' },
			{ name: 'Form-Data', value: 'multipart-form-data' },
			{ name: 'JSON', value: 'json' },
			{ name: 'n8n Binary File', value: 'binaryData' },
			{ name: 'Raw', value: 'raw' },
		],
		default: 'json',
		description: 'Content-Type to use to send body parameters',
	},
	{
		displayName: 'Specify Body',
		name: 'specifyBody',
		type: 'options',
		displayOptions: { show: { sendBody: [true], contentType: ['json'] } },
		options: [
			{ name: 'Using Fields Below', value: 'keypair' },
			{ name: 'Using JSON', value: 'json' },
		],
		default: 'keypair',
	},
	keyValueCollection('bodyParameters', 'Body Parameters', 'Parameter', { sendBody: [true], contentType: ['json'], specifyBody: ['keypair'] }),
	{
		displayName: 'JSON',
		name: 'jsonBody',
		type: 'json',
		displayOptions: { show: { sendBody: [true], contentType: ['json'], specifyBody: ['json'] } },
		default: '',
	},
	{
		displayName: 'Specify Body',
		name: 'specifyBody',
		type: 'options',
		displayOptions: { show: { sendBody: [true], contentType: ['form-urlencoded'] } },
		options: [
			{ name: 'Using Fields Below', value: 'keypair' },
			{ name: 'Using Single Field', value: 'string' },
		],
		default: 'keypair',
	},
	keyValueCollection('bodyParameters', 'Body Parameters', 'Parameter', { sendBody: [true], contentType: ['form-urlencoded'], specifyBody: ['keypair'] }),
	{
		displayName: 'Body',
		name: 'body',
		type: 'string',
		displayOptions: { show: { sendBody: [true], contentType: ['form-urlencoded'], specifyBody: ['string'] } },
		default: '',
		placeholder: 'field1=value1&field2=value2',
	},
	{
		displayName: 'Body Parameters',
		name: 'bodyParameters',
		type: 'fixedCollection',
		displayOptions: { show: { sendBody: [true], contentType: ['multipart-form-data'] } },
		typeOptions: { multipleValues: true },
		placeholder: 'Add Parameter',
		default: { parameters: [{ parameterType: 'formData', name: '', value: '' }] },
		options: [
			{
				name: 'parameters',
				displayName: 'Parameter',
				values: [
					{
						displayName: 'Parameter Type',
						name: 'parameterType',
						type: 'options',
						options: [
							{ name: 'n8n Binary File', value: 'formBinaryData' },
							{ name: 'Form Data', value: 'formData' },
						],
						default: 'formData',
					},
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', displayOptions: { show: { parameterType: ['formData'] } }, default: '' },
					{
						displayName: 'Input Data Field Name',
						name: 'inputDataFieldName',
						type: 'string',
						displayOptions: { show: { parameterType: ['formBinaryData'] } },
						default: 'data',
						description: 'The name of the incoming field containing the binary file data to be sent',
					},
				],
			},
		],
	},
	{
		displayName: 'Input Data Field Name',
		name: 'inputDataFieldName',
		type: 'string',
		displayOptions: { show: { sendBody: [true], contentType: ['binaryData'] } },
		default: 'data',
		description: 'The name of the incoming field containing the binary file data to be sent',
	},
	{
		displayName: 'Content Type',
		name: 'rawContentType',
		type: 'string',
		displayOptions: { show: { sendBody: [true], contentType: ['raw'] } },
		default: 'text/plain',
		placeholder: 'text/html',
	},
	{
		displayName: 'Body',
		name: 'body',
		type: 'string',
		displayOptions: { show: { sendBody: [true], contentType: ['raw'] } },
		default: '',
		typeOptions: { rows: 4 },
	},
];
