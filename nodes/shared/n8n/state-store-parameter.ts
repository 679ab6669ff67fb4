import type { INodeProperties } from 'n8n-workflow';

/**
 * *Shared State*: where the APIs' traffic controllers live, the n8n process's memory or Redis. One
 * declaration for every node that reads or writes them (the request node, the Traffic Control
 * node), so that its name, values and default never drift apart; each node says what it means there.
 */
export function stateStoreProperty(texts: { description: string; memory: string; redis: string }): INodeProperties {
	return {
		displayName: 'Shared State',
		name: 'stateStore',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'This n8n Process (Memory)', value: 'memory', description: texts.memory },
			{ name: 'Redis (Queue Mode)', value: 'redis', description: texts.redis },
		],
		default: 'memory',
		description: texts.description,
	};
}
