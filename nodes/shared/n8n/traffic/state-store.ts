/**
 * Picks where the APIs' traffic controllers live for this execution, by the node's *Shared State*
 * parameter: the process's memory (default), or the Redis of n8n's queue mode, shared by all
 * workers. A node that sends requests never fails for Redis: its store falls back to memory and
 * warns once per outage. An operator's node (Traffic Control) must know that Redis did not answer:
 * its store has no fallback.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { StateStore, TrafficInspector } from '../../core/traffic/store';
import { getRedisStateStoreWithFallback } from '../../state/fallback-store';
import { redisConnectionFromCredential } from '../../state/redis-connection';
import { getRedisStateStore } from '../../state/redis-store';
import { logNameOf } from './traffic-log';

/** A store an operator can list and read, besides stepping. */
export type OperatorStore = StateStore & TrafficInspector;

/** `nodeType`: the node's display name, for its log lines. */
export async function selectStateStore(ctx: IExecuteFunctions, memoryStore: StateStore, nodeType: string, redis: 'with fallback'): Promise<StateStore>;
export async function selectStateStore(ctx: IExecuteFunctions, memoryStore: OperatorStore, nodeType: string, redis: 'no fallback'): Promise<OperatorStore>;
export async function selectStateStore(ctx: IExecuteFunctions, memoryStore: StateStore, nodeType: string, redis: 'with fallback' | 'no fallback'): Promise<StateStore> {
	if ((ctx.getNodeParameter('stateStore', 0, 'memory') as string) !== 'redis') return memoryStore;
	if (redis === 'no fallback') return getRedisStateStore(redisConnectionFromCredential(await ctx.getCredentials('resilientHttpRedis', 0)));
	const node = logNameOf(ctx, nodeType);
	try {
		const connection = redisConnectionFromCredential(await ctx.getCredentials('resilientHttpRedis', 0));
		return getRedisStateStoreWithFallback(connection, {
			warn: (message) => ctx.logger.warn(`${node}: ${message}`),
			info: (message) => ctx.logger.info(`${node}: ${message}`),
		});
	} catch (error) {
		ctx.logger.warn(`${node}: the Redis credential cannot be used (${(error as Error).message}); retry budgets and holds stay in this process's memory`);
		return memoryStore;
	}
}
