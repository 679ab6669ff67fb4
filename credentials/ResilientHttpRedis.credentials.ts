import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The Redis that holds retry budgets and circuit breakers shared by all workers (queue mode):
 * usually the one n8n already uses for its queue. The fields have the names and defaults of n8n's
 * own Redis credential, so that a user recognises them (and could copy the values).
 *
 * No declarative `test`: n8n's `test` sends an HTTP request, which cannot reach Redis. A node that
 * offers this credential tests it with `testedBy` and `testRedisCredential` (nodes/shared/state/redis-store.ts).
 */
export class ResilientHttpRedis implements ICredentialType {
	name = 'resilientHttpRedis';

	displayName = 'Resilient HTTP Redis';

	icon = { light: 'file:resilientHttpRedis.svg', dark: 'file:resilientHttpRedis.dark.svg' } as const;

	documentationUrl = 'https://github.com/n8n-nodes-resilient-http/n8n-nodes-resilient-http/blob/main/docs/queue-mode.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Host',
			name: 'host',
			type: 'string',
			default: 'localhost',
			description: 'Usually the Redis of n8n\'s queue mode (QUEUE_BULL_REDIS_HOST)',
		},
		{
			displayName: 'Port',
			name: 'port',
			type: 'number',
			default: 6379,
		},
		{
			displayName: 'Database Number',
			name: 'database',
			type: 'number',
			default: 0,
			description: 'Keys are prefixed with "rh:", so sharing the database of n8n\'s queue is safe',
		},
		{
			displayName: 'User',
			name: 'user',
			type: 'string',
			default: '',
			hint: 'Leave blank for password-only auth',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: {
				password: true,
			},
			default: '',
		},
		{
			displayName: 'Cluster Nodes',
			name: 'clusterNodes',
			type: 'string',
			default: '',
			placeholder: 'redis-1:6379,redis-2:6379,redis-3:6379',
			description: 'For a Redis Cluster: its nodes as host:port pairs separated by commas, as in n8n\'s QUEUE_BULL_REDIS_CLUSTER_NODES. Host and Port are then not used, and Database Number must be 0.',
		},
		{
			displayName: 'SSL',
			name: 'ssl',
			type: 'boolean',
			default: false,
			description: 'Whether to connect with TLS',
		},
		{
			displayName: 'Disable TLS Verification (insecure)',
			name: 'disableTlsVerification',
			type: 'boolean',
			displayOptions: {
				show: {
					ssl: [true],
				},
			},
			default: false,
			description:
				'Whether to disable TLS certificate verification. Enable this to use self-signed certificates. WARNING: This makes the connection less secure.',
		},
	];
}
