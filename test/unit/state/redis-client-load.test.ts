/**
 * A package installed without its dependencies (a copied dist/, `npm install --omit=prod`) has no
 * ioredis: the Redis store then fails with an error that says how to install the package, not only
 * Node's "Cannot find module".
 */
test('without ioredis, the Redis store says how to install the package', () => {
	jest.isolateModules(() => {
		jest.doMock('ioredis', () => {
			throw new Error("Cannot find module 'ioredis'");
		});
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { loadIoredis, RedisStoreError } = require('../../../nodes/shared/state/redis-connection') as typeof import('../../../nodes/shared/state/redis-connection');
		const loaded = loadIoredis();
		expect(loaded).toBeInstanceOf(RedisStoreError);
		expect((loaded as Error).message).toBe(
			"Redis store: cannot load the Redis client (ioredis): Cannot find module 'ioredis'. The package was installed without its dependencies: install it with `npm install --omit=peer` (README, Install in your own n8n)",
		);
	});
});
