/** The credential test of the Resilient HTTP Redis credential: connect with the store's settings and PING. */
import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';
import { messageOf, redisConnectionFromCredential } from './redis-connection';
import { RedisStateStore } from './redis-store';

/**
 * A credential test for nodes that offer the Resilient HTTP Redis credential: n8n's declarative
 * `test` only sends HTTP requests, so a node wires this as
 * `methods: { credentialTest: { resilientHttpRedisConnectionTest: testRedisCredential } }` and
 * `credentials: [{ name: 'resilientHttpRedis', testedBy: 'resilientHttpRedisConnectionTest' }]`.
 * It connects with the store's own client settings and sends PING.
 */
export async function testRedisCredential(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	let store: RedisStateStore | undefined;
	try {
		store = new RedisStateStore(redisConnectionFromCredential(credential.data ?? {}), { connectTimeoutMs: 5_000, commandTimeoutMs: 5_000 });
		await store.ping();
		return { status: 'OK', message: 'Connection successful' };
	} catch (error) {
		return { status: 'Error', message: messageOf(error) };
	} finally {
		await store?.close();
	}
}
