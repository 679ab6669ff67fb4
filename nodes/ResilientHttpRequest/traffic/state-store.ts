/**
 * Picks where budgets and breakers live for this execution: the process's memory (default), or
 * the Redis of n8n's queue mode, shared by all workers. A Redis problem never fails a request:
 * the store falls back to memory and warns once per outage.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { getRedisStateStoreWithFallback } from '../../shared/state/fallback-store';
import { redisConnectionFromCredential } from '../../shared/state/redis-connection';
import type { StateStore } from '../../shared/core/traffic/store';

export async function selectStateStore(ctx: IExecuteFunctions, memoryStore: StateStore): Promise<StateStore> {
	if ((ctx.getNodeParameter('stateStore', 0, 'memory') as string) !== 'redis') return memoryStore;
	const node = ctx.getNode().name;
	try {
		const connection = redisConnectionFromCredential(await ctx.getCredentials('resilientHttpRedis', 0));
		return getRedisStateStoreWithFallback(connection, {
			warn: (message) => ctx.logger.warn(`Resilient HTTP Request "${node}": ${message}`),
			info: (message) => ctx.logger.info(`Resilient HTTP Request "${node}": ${message}`),
		});
	} catch (error) {
		ctx.logger.warn(`Resilient HTTP Request "${node}": the Redis credential cannot be used (${(error as Error).message}); budgets and breakers stay in this process's memory`);
		return memoryStore;
	}
}
