/**
 * The fleet's traffic counts in Redis (state/fleet-counts.ts), through the store's count and
 * counts: what two workers counted adds up per API, in one hash per API (its label, an expiry),
 * on a single Redis and across a cluster's slots; counting never waits and never throws, Redis
 * away or not. The background flush (a real second) is test/realtime/redis-store.test.ts's.
 */
import { RedisStateStore } from '../../../nodes/shared/state/redis-store';
import { clusterTitle, describeCluster, describeRedis, redisTitle, UNREACHABLE, useClusterWorkers, useRedisWorkers } from '../../support/redis-fixtures';

describe('counting without a Redis server', () => {
	it('never throws nor waits; reading the fleet counts says Redis did not answer', async () => {
		const store = new RedisStateStore(UNREACHABLE, { connectTimeoutMs: 200 });
		try {
			expect(store.count('api:1', 'a.example', { 'req:first': 1 })).toBeUndefined();
			await expect(store.counts()).rejects.toThrow();
		} finally {
			await store.close();
		}
	});
});

describeRedis(redisTitle('the fleet counts in a real Redis'), () => {
	const redis = useRedisWorkers();

	it("two workers' counts of an API add up, field by field; the hash keeps the label and expires in 7 days", async () => {
		redis.workerA.count('api:fleet', 'a.example', { 'req:first': 2, 'status:200': 2 });
		redis.workerB.count('api:fleet', 'a.example:8080', { 'req:first': 3, 'status:429': 1 });
		redis.workerB.count('api:other', 'b.example', { paused: 1 });
		// each worker's read sends its own counts first
		await redis.workerA.counts();
		const read = await redis.workerB.counts();
		expect(read.sort((a, b) => (a.key < b.key ? -1 : 1))).toEqual([
			{ key: 'api:fleet', label: 'a.example:8080', counts: { 'req:first': 5, 'status:200': 2, 'status:429': 1 } },
			{ key: 'api:other', label: 'b.example', counts: { paused: 1 } },
		]);
		const ttl = await redis.admin.pttl(`${redis.prefix}metrics:{api:fleet}`);
		expect(ttl).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
		expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600_000);
		// read again: nothing counted twice
		expect((await redis.workerA.counts()).find((api) => api.key === 'api:fleet')?.counts['req:first']).toBe(5);
	});
});

describeCluster(clusterTitle('the fleet counts in a Redis Cluster'), () => {
	const cluster = useClusterWorkers();

	it('APIs on every node are read back (a SCAN of each master)', async () => {
		const keys = Array.from({ length: 12 }, (_, i) => `api:cluster-${i}`);
		for (const key of keys) cluster.workerA.count(key, key, { 'req:first': 1 });
		for (const key of keys) cluster.workerB.count(key, key, { 'req:resend': 2 });
		await cluster.workerA.counts();
		const read = (await cluster.workerB.counts()).filter((api) => keys.includes(api.key));
		expect(read).toHaveLength(keys.length);
		for (const api of read) expect(api.counts).toEqual({ 'req:first': 1, 'req:resend': 2 });
	});
});
