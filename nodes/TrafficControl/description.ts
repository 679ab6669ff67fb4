import type { INodeProperties } from 'n8n-workflow';
import { stateStoreProperty } from '../shared/n8n/state-store-parameter';
import { guardProperties } from './guard/properties';

/** The forms the API parameter takes (api-filter.ts reads them). */
const API_FORMS = 'Any of: the host (api.github.com, 127.0.0.1: every port and credential of it), host:port, a URL or origin on it (any path), the label or the key (api:…) Get State shows. Host names in any case; a default port (80, 443) may be given or not.';

export const trafficControlProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Get State', value: 'getState', action: "Get the state of APIs' traffic controllers", description: 'One item per API: paused until when and why, held, window, pace, budget' },
			{ name: 'Get Metrics', value: 'getMetrics', action: "Get the metrics of APIs' traffic controllers", description: 'Requests, resends, answers, waits, pauses and holds counted per API, with the state now: as items or as Prometheus text' },
			{ name: 'End Pause or Hold', value: 'resume', action: "End an API's pause or outage hold by hand", description: 'The next request to the API goes at once' },
			{ name: 'Wait for Room', value: 'waitForRoom', action: 'Wait for room at an API before the next node calls it', description: "Each item waits at the API's controller (pause, hold, pace, tokens), then goes on to the node that calls the API" },
			{ name: 'Report Outcome', value: 'reportOutcome', action: "Report a node's outcome to the API's controller", description: 'After the node that called the API: each item tells the controller what its call did, then goes to Success or Failed' },
		],
		default: 'getState',
	},
	...guardProperties,
	stateStoreProperty({
		memory: 'The controllers of the Resilient HTTP Request nodes of this n8n process',
		redis: 'The controllers the Resilient HTTP Request nodes keep in Redis (Shared State: Redis)',
		description: 'Where the Resilient HTTP Request nodes keep the controllers: as they are set',
	}),
	{
		displayName: 'API',
		name: 'api',
		type: 'string',
		default: '',
		placeholder: 'e.g. api.github.com',
		description: `The API to show. ${API_FORMS} Empty: every API.`,
		displayOptions: { show: { operation: ['getState', 'getMetrics'] } },
	},
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		options: [
			{ name: 'One Item per API', value: 'items', description: 'Counts and state of each API as JSON' },
			{ name: 'Prometheus Text', value: 'prometheus', description: 'One item with the text exposition of every API, for a Respond to Webhook node to serve to Prometheus (content type text/plain; version=0.0.4)' },
		],
		default: 'items',
		displayOptions: { show: { operation: ['getMetrics'] } },
	},
	{
		displayName: 'Put Output in Field',
		name: 'outputField',
		type: 'string',
		default: 'metrics',
		required: true,
		description: 'The field of the item that holds the Prometheus text',
		displayOptions: { show: { operation: ['getMetrics'], format: ['prometheus'] } },
	},
	{
		displayName: 'API',
		name: 'api',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. api.github.com',
		description: `The API whose pause or hold to end. ${API_FORMS} An API the store does not keep fails the item, listing those it keeps.`,
		displayOptions: { show: { operation: ['resume'] } },
	},
	{
		displayName: 'End',
		name: 'end',
		type: 'options',
		options: [
			{ name: 'Pause and Hold', value: 'both', description: 'Whatever holds the requests back' },
			{ name: 'Pause', value: 'pause', description: "A server's wait, a guessed one, a spent quota (the API's and its rate-limit buckets')" },
			{ name: 'Hold', value: 'hold', description: 'The outage hold: the requests come back in slow start, as after a successful probe' },
		],
		default: 'both',
		displayOptions: { show: { operation: ['resume'] } },
	},
];
