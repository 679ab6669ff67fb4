/**
 * Every network fault the node exists for, injected by a local server (test/support/fault-server.ts)
 * and run through n8n's engine with the real Resilient HTTP Request node. For each: is it retried,
 * where does the item end (with its original data and a retry story), how many requests did the
 * server see, and a POST without an idempotency key is never sent twice once its body may have
 * reached the server. Backoff sleeps take no real time (virtual runtime); attempt timeouts are
 * real and small.
 *
 * The table "Faults" of docs/testing.md is built from the rows the cases record after their assertions passed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import type { IDataObject } from 'n8n-workflow';
import { ResilientHttpRedis } from '../../credentials/ResilientHttpRedis.credentials';
import type { RetryStory } from '../../nodes/shared/core/retry-story';
import { CancelledError, type Runtime } from '../../nodes/shared/core/runtime';
import { getRedisStateStoreWithFallback } from '../../nodes/shared/state/fallback-store';
import { redisConnectionFromCredential } from '../../nodes/shared/state/redis-connection';
import { closeRedisStateStores } from '../../nodes/shared/state/redis-store';
import {
	HAVE_OPENSSL,
	refusedUrl,
	startFaultServer,
	startSelfSignedTlsServer,
	startTlsResetServer,
	type CountingEndpoint,
	type FaultLogEntry,
	type FaultServer,
	type SelfSignedTlsServer,
} from '../support/fault-server';
import { faultSectionMarkdown, type FaultRow } from '../support/fault-server.runs';
import { expectDocSection } from '../support/doc-section';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MAX_ATTEMPTS = 3;
const HEADER_AUTH = { name: 'X-Api-Key', value: 'fault-test-key' };
const ATTEMPT_TIMEOUT_MS = 400;

/** The retry story: top level on success items, inside `error` on failed ones. */
const storyOf = (json: IDataObject): RetryStory => (json._retry ?? (json.error as IDataObject)._retry) as unknown as RetryStory;
const withoutError = ({ error: _error, ...rest }: IDataObject): IDataObject => rest;

interface Env {
	faults: FaultServer;
	tlsClose: CountingEndpoint;
	tlsReset: CountingEndpoint;
	selfSigned?: SelfSignedTlsServer;
	refused: string;
}

interface Expected {
	attempts: number;
	endsOn: 'success' | 'error';
	reason?: string;
	code?: string;
	status?: number;
	/** Requests (or TLS handshakes) the server saw for this item. */
	seen: number;
	/** The error message says this. */
	message?: RegExp;
	/** The error output's `body` is the start of the response body, as text, cut with "…". */
	bodyCut?: string;
	/** The node closed every connection it gave up on (a hanging or dripping server keeps nothing open). */
	closesConnections?: boolean;
}

interface FaultCase {
	fault: string;
	method: 'GET' | 'POST';
	/** POST with a generated idempotency key. */
	key?: boolean;
	url(env: Env, key: string): string;
	/** What the server saw of this item: requests, or handshakes for the TLS endpoints. */
	seen(env: Env, key: string): number;
	seenUnit?: string;
	retryOptions?: IDataObject;
	options?: IDataObject;
	maxAttempts?: number;
	/** Through an n8n-handled credential (Header Auth): n8n's httpRequestWithAuthentication sends it. */
	headerAuth?: boolean;
	/** Fields added to the item (a POST sends the item as its JSON body). */
	item?: IDataObject;
	why: string;
	expected: Expected;
	skip?: string;
}

const requestsOf = (env: Env, key: string) => env.faults.requestsOf(key).length;
const faultUrl = (fault: string, query = '') => (env: Env, key: string) => `${env.faults.url}/${fault}/${key}${query ? `?${query}` : ''}`;

const CASES: FaultCase[] = [
	{ fault: 'Connection refused', method: 'GET', url: (env) => `${env.refused}/x`, seen: () => 0, why: 'never reached the server', expected: { attempts: 3, endsOn: 'error', reason: 'attempts-exhausted', code: 'ECONNREFUSED', seen: 0 } },
	{ fault: 'Connection refused', method: 'POST', url: (env) => `${env.refused}/x`, seen: () => 0, why: 'never reached the server: safe for a POST too', expected: { attempts: 3, endsOn: 'error', reason: 'attempts-exhausted', code: 'ECONNREFUSED', seen: 0 } },
	{ fault: 'Reset before any response (once)', method: 'GET', url: faultUrl('reset-before', 'times=1'), seen: requestsOf, why: 'transient; GET is idempotent', expected: { attempts: 2, endsOn: 'success', seen: 2 } },
	{ fault: 'Reset before any response', method: 'POST', url: faultUrl('reset-before'), seen: requestsOf, why: 'the server may have processed it', expected: { attempts: 1, endsOn: 'error', reason: 'not-safe-to-retry', code: 'ECONNRESET', seen: 1, message: /may have processed it/ } },
	{ fault: 'Reset after the request body was received (once)', method: 'GET', url: faultUrl('reset-after-body', 'times=1'), seen: requestsOf, why: 'transient; GET is idempotent', expected: { attempts: 2, endsOn: 'success', seen: 2 } },
	{ fault: 'Reset after the request body was received', method: 'POST', url: faultUrl('reset-after-body'), seen: requestsOf, why: 'the server may have processed it', expected: { attempts: 1, endsOn: 'error', reason: 'not-safe-to-retry', code: 'ECONNRESET', seen: 1, message: /may have processed it/ } },
	{ fault: 'Reset after the request body was received (once)', method: 'POST', key: true, url: faultUrl('reset-after-body', 'times=1'), seen: requestsOf, why: 'an idempotency key is sent', expected: { attempts: 2, endsOn: 'success', seen: 2 } },
	{ fault: 'Response cut mid-body (once)', method: 'GET', url: faultUrl('cut-body', 'times=1'), seen: requestsOf, why: 'transient; GET is idempotent', expected: { attempts: 2, endsOn: 'success', seen: 2 } },
	{ fault: 'Response cut mid-body', method: 'POST', url: faultUrl('cut-body'), seen: requestsOf, why: 'the server answered, so it may have acted', expected: { attempts: 1, endsOn: 'error', reason: 'not-safe-to-retry', code: 'ERR_STREAM_PREMATURE_CLOSE', seen: 1, message: /may have processed it/ } },
	{ fault: 'Response cut mid-body, a streamed answer (`"stream": true`, once)', method: 'POST', key: true, item: { stream: true }, url: faultUrl('cut-body', 'times=1'), seen: requestsOf, why: 'its answer had begun: sent again it would be generated (and paid for) again, key or not', expected: { attempts: 1, endsOn: 'error', reason: 'not-safe-to-retry', code: 'ERR_STREAM_PREMATURE_CLOSE', seen: 1, message: /streamed answer broke off after the first bytes/ } },
	{ fault: 'Response cut mid-body (once)', method: 'POST', key: true, url: faultUrl('cut-body', 'times=1'), seen: requestsOf, why: 'an idempotency key is sent', expected: { attempts: 2, endsOn: 'success', seen: 2 } },
	{ fault: `Never answers (Attempt Timeout ${ATTEMPT_TIMEOUT_MS} ms, once)`, method: 'GET', url: faultUrl('hang', 'times=1'), seen: requestsOf, retryOptions: { attemptTimeout: ATTEMPT_TIMEOUT_MS }, why: 'timeout is transient; GET is idempotent', expected: { attempts: 2, endsOn: 'success', seen: 2, closesConnections: true } },
	{ fault: `Never answers (Attempt Timeout ${ATTEMPT_TIMEOUT_MS} ms)`, method: 'POST', url: faultUrl('hang'), seen: requestsOf, retryOptions: { attemptTimeout: ATTEMPT_TIMEOUT_MS }, why: 'the server may have processed it', expected: { attempts: 1, endsOn: 'error', reason: 'not-safe-to-retry', code: 'ETIMEDOUT', seen: 1, message: /may have processed it/, closesConnections: true } },
	{ fault: `Slow drip of bytes, one per 50 ms (Attempt Timeout ${ATTEMPT_TIMEOUT_MS} ms)`, method: 'GET', url: faultUrl('drip'), seen: requestsOf, retryOptions: { attemptTimeout: ATTEMPT_TIMEOUT_MS }, why: 'each attempt ends at its timeout, even while bytes arrive', expected: { attempts: 3, endsOn: 'error', reason: 'attempts-exhausted', code: 'ETIMEDOUT', seen: 3, closesConnections: true } },
	{ fault: `Slow drip of bytes, with a Header Auth credential (Attempt Timeout ${ATTEMPT_TIMEOUT_MS} ms)`, method: 'GET', headerAuth: true, url: faultUrl('drip'), seen: requestsOf, retryOptions: { attemptTimeout: ATTEMPT_TIMEOUT_MS }, why: 'as without a credential', expected: { attempts: 3, endsOn: 'error', reason: 'attempts-exhausted', code: 'ETIMEDOUT', seen: 3, closesConnections: true } },
	{ fault: 'Redirect loop (Max Redirects 5)', method: 'GET', url: faultUrl('redirect-loop'), seen: requestsOf, options: { redirect: { redirect: { maxRedirects: 5 } } }, why: 'a loop does not heal by waiting', expected: { attempts: 1, endsOn: 'error', reason: 'not-retryable-error', code: 'ERR_FR_TOO_MANY_REDIRECTS', seen: 6 } },
	{ fault: 'TLS handshake closed by the server (FIN)', method: 'POST', url: (env) => `${env.tlsClose.url}/x`, seen: (env) => env.tlsClose.connections(), seenUnit: 'handshakes', why: 'disconnected before the TLS connection was established: nothing sent, safe for a POST too', expected: { attempts: 3, endsOn: 'error', reason: 'attempts-exhausted', code: 'ECONNRESET', seen: 3 } },
	{ fault: 'TLS handshake reset by the server (RST)', method: 'GET', url: (env) => `${env.tlsReset.url}/x`, seen: (env) => env.tlsReset.connections(), seenUnit: 'handshakes', why: 'transient; GET is idempotent', expected: { attempts: 3, endsOn: 'error', reason: 'attempts-exhausted', code: 'ECONNRESET', seen: 3 } },
	{ fault: 'TLS handshake reset by the server (RST)', method: 'POST', url: (env) => `${env.tlsReset.url}/x`, seen: (env) => env.tlsReset.connections(), seenUnit: 'handshakes', why: 'a bare "read ECONNRESET" cannot tell a handshake from a sent request', expected: { attempts: 1, endsOn: 'error', reason: 'not-safe-to-retry', code: 'ECONNRESET', seen: 1 } },
	{
		fault: 'TLS certificate not trusted (self-signed)',
		method: 'GET',
		url: (env) => `${env.selfSigned!.url}/x`,
		seen: (env) => env.selfSigned!.connections() + env.selfSigned!.requests(),
		seenUnit: 'handshakes',
		why: 'configuration, not luck',
		expected: { attempts: 1, endsOn: 'error', reason: 'not-retryable-error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', seen: 1 },
		...(HAVE_OPENSSL ? {} : { skip: 'no openssl to make the test certificate' }),
	},
	{ fault: '503 (once)', method: 'GET', url: faultUrl('status', 'times=1'), seen: requestsOf, why: 'status in Retry On Status Codes', expected: { attempts: 2, endsOn: 'success', seen: 2 } },
	{ fault: '503', method: 'POST', url: faultUrl('status'), seen: requestsOf, why: 'the server answered: it may have acted', expected: { attempts: 1, endsOn: 'error', reason: 'not-safe-to-retry', status: 503, seen: 1 } },
	{ fault: '503 with a 5 MB JSON body', method: 'GET', maxAttempts: 2, url: faultUrl('large-status', `type=json&size=${5 * 1024 * 1024}`), seen: requestsOf, why: 'status in Retry On Status Codes', expected: { attempts: 2, endsOn: 'error', reason: 'attempts-exhausted', status: 503, seen: 2, bodyCut: '{"error":"upstream failed","dump":"xxx' } },
	{ fault: 'DNS failure (`nothing.invalid`, RFC 6761)', method: 'GET', url: () => 'http://nothing.invalid/x', seen: () => 0, why: 'the host does not exist', expected: { attempts: 1, endsOn: 'error', reason: 'not-retryable-error', code: 'ENOTFOUND', seen: 0 } },
];

function caseWorkflow(c: FaultCase, url: string) {
	return httpWorkflow(
		{
			method: c.method,
			url,
			maxAttempts: c.maxAttempts ?? MAX_ATTEMPTS,
			retryOptions: { baseDelay: 100, maxDelay: 1000, ...c.retryOptions },
			sharedLimits: { budget: false },
			...(c.key ? { idempotencyKeyMode: 'generate' } : {}),
			...(c.method === 'POST' ? { sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody: '={{ JSON.stringify($json) }}' } : {}),
			...(c.headerAuth ? { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' } : {}),
			options: { allowUnauthorizedCerts: false, ...c.options },
		},
		{ onError: 'continueErrorOutput', ...(c.headerAuth ? { credentials: { httpHeaderAuth: { id: 'h', name: 'header' } } } : {}) },
	);
}

function itemEndsOn(e: Expected): string {
	if (e.endsOn === 'success') return 'success output';
	return `error output: \`${e.reason}\`${e.code ? `, ${e.code}` : ''}${e.status ? `, ${e.status}` : ''}`;
}

/** The client closes a connection it gave up on at once; allow a moment for the close to arrive. */
async function expectAllClosed(requests: FaultLogEntry[]): Promise<void> {
	for (let i = 0; i < 100 && requests.some((r) => r.open); i++) await new Promise((resolve) => setTimeout(resolve, 10));
	expect(requests.filter((r) => r.open)).toEqual([]);
}

const rows: FaultRow[] = [];
const skipped: string[] = [];

describe('faults injected by a local server, through the engine', () => {
	let env: Env;
	beforeAll(async () => {
		env = {
			faults: await startFaultServer(),
			tlsClose: await startTlsResetServer('close'),
			tlsReset: await startTlsResetServer('reset'),
			...(HAVE_OPENSSL ? { selfSigned: await startSelfSignedTlsServer() } : {}),
			refused: await refusedUrl(),
		};
	});
	afterAll(async () => {
		await Promise.all([env.faults.close(), env.tlsClose.close(), env.tlsReset.close(), env.selfSigned?.close()]);
	});

	CASES.forEach((c, n) => {
		const title = `${c.fault}, ${c.method}${c.key ? ' with an idempotency key' : c.method === 'POST' ? ' without a key' : ''}`;
		if (c.skip) {
			skipped.push(title);
			it.skip(`${title} (skipped: ${c.skip})`, () => undefined);
			return;
		}
		it(title, async () => {
			const key = `case-${n}`;
			const input = { order: `A-${n}`, amount: 5, nested: { tags: ['x', 'y'] }, ...c.item };
			const runtime = createVirtualRuntime(n + 1);
			const seenBefore = c.seen(env, key);
			const run = await runHttp(caseWorkflow(c, c.url(env, key)), [{ json: input }], runtime, c.headerAuth ? { credentials: { httpHeaderAuth: HEADER_AUTH } } : {});
			const e = c.expected;

			expect(run.status).toBe('success');
			const ok = run.jsonOf('HTTP', 0);
			const failed = run.jsonOf('HTTP', 1);
			expect(ok.length + failed.length).toBe(1);
			if (e.endsOn === 'success') {
				expect(ok).toHaveLength(1);
				expect(ok[0]).toMatchObject({ key, attempt: e.attempts });
				if (c.method === 'POST') expect(ok[0].echo).toEqual(input);
			} else {
				expect(failed).toHaveLength(1);
				expect(withoutError(failed[0])).toEqual(input);
				const error = failed[0].error as IDataObject;
				expect(error.reason).toBe(e.reason);
				if (e.code) expect(error.code).toBe(e.code);
				if (e.status) expect(error.status).toBe(e.status);
				// why it stopped is the story's summary; the message is HTTP Request's
				if (e.message) expect(String(storyOf(failed[0]).summary)).toMatch(e.message);
				if (e.bodyCut) {
					// the body as HTTP Request carries it (`error`), cut when large
					expect(typeof error.error).toBe('string');
					expect(String(error.error).startsWith(e.bodyCut)).toBe(true);
					expect(String(error.error)).toHaveLength(2001);
					expect(String(error.error).endsWith('…')).toBe(true);
				}
			}
			const story = storyOf(e.endsOn === 'success' ? ok[0] : failed[0]);
			expect(story.attempts).toBe(e.attempts);
			expect(story.history).toHaveLength(e.attempts);
			expect(runtime.sleeps).toHaveLength(e.attempts - 1);
			const seen = c.seen(env, key) - seenBefore;
			expect(seen).toBe(e.seen);

			const requests = env.faults.requestsOf(key);
			if (e.closesConnections) await expectAllClosed(requests);
			if (c.headerAuth) for (const r of requests) expect(r.headers['x-api-key']).toBe(HEADER_AUTH.value);
			if (c.method === 'POST' && !c.key) {
				// never sent twice once the body may have reached the server
				expect(requests.length).toBeLessThanOrEqual(1);
			}
			if (c.key) {
				const keys = new Set(requests.map((r) => r.headers['idempotency-key']));
				expect(keys.size).toBe(1);
				expect(story.idempotencyKey).toBe([...keys][0]);
			}
			rows.push({
				fault: c.fault,
				method: `${c.method}${c.key ? ' + key' : c.method === 'POST' ? ', no key' : ''}${c.headerAuth ? ', Header Auth' : ''}`,
				retried: e.attempts > 1 ? `yes: ${c.why}` : `no: ${c.why}`,
				endsOn: `${itemEndsOn(e)}${e.bodyCut ? ', `body`: its first 2,000 characters as text' : ''}${e.closesConnections ? '; each timed-out connection closed' : ''}`,
				seen: `${e.seen}${c.seenUnit ? ` ${e.seen === 1 ? c.seenUnit.replace(/s$/, '') : c.seenUnit}` : ''}`,
				attempts: e.attempts,
			});
		});
	});

	it('a 5xx with a 20 MB body: retried, and no failed attempt\'s body is kept across attempts', async () => {
		const size = 20 * 1024 * 1024;
		const samples: number[] = [];
		const faults = await startFaultServer({
			onRequest: () => {
				gc();
				gc();
				samples.push(process.memoryUsage().arrayBuffers);
			},
		});
		try {
			const attempts = 8;
			const runtime = createVirtualRuntime(7);
			const wf = httpWorkflow({ url: `${faults.url}/large-status/big?size=${size}`, maxAttempts: attempts, sharedLimits: { budget: false } }, { onError: 'continueErrorOutput' });
			const run = await runHttp(wf, [{ json: { order: 'big' } }], runtime);

			const [failed] = run.jsonOf('HTTP', 1);
			expect(withoutError(failed)).toEqual({ order: 'big' });
			const error = failed.error as IDataObject;
			expect(error).toMatchObject({ reason: 'attempts-exhausted', status: 503 });
			// the error output carries the start of the body (`error`, as in HTTP Request's), not 20 MB
			expect(String(error.error)).toHaveLength(2001);
			expect(String(error.error).startsWith('<p>upstream error</p>')).toBe(true);
			expect(storyOf(failed).attempts).toBe(attempts);
			expect(faults.requestsOf('big')).toHaveLength(attempts);
			// Sampled (after a GC) as each attempt arrives: the server's one 20 MB buffer, the previous
			// attempt's body (the loop's last failure) and buffers in flight. Were bodies kept across
			// attempts, the 6th sample would hold 5 of them (100 MB) more than the 1st.
			expect(samples).toHaveLength(attempts);
			// Sampled after a GC as each attempt arrives. From the 2nd attempt on, memory holds the server's
			// one 20 MB buffer, the previous attempt's body (the loop's last failure) and buffers still being
			// released (up to about one more body). Were bodies kept across attempts, the 8th sample would
			// hold 6 of them (120 MB) more than the 2nd.
			expect(samples).toHaveLength(attempts);
			for (const sample of samples.slice(2)) expect(sample - samples[1]).toBeLessThan(2 * size);
			rows.push({ fault: '503 with a 20 MB body', method: 'GET', retried: 'yes: status in Retry On Status Codes', endsOn: 'error output: `attempts-exhausted`, 503, `body`: its first 2,000 characters', seen: String(attempts), attempts, note: "memory at each later attempt (after a GC) stays within 2 bodies of the 2nd attempt's" });
		} finally {
			await faults.close();
		}
	});

	describe('cancelling the execution', () => {
		it.each([false, true])('during a request (Header Auth credential: %s): the attempt ends at once, its connection closes, nothing more is sent', async (headerAuth) => {
			const controller = new AbortController();
			const faults = await startFaultServer({ onRequest: () => setImmediate(() => controller.abort()) });
			try {
				const runtime = createVirtualRuntime(3);
				const auth = headerAuth ? { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' } : {};
				const wf = httpWorkflow({ url: `${faults.url}/hang/cancel-request`, maxAttempts: 5, sharedLimits: { budget: false }, ...auth }, { onError: 'continueErrorOutput', ...(headerAuth ? { credentials: { httpHeaderAuth: { id: 'h', name: 'header' } } } : {}) });
				const run = await runHttp(wf, [{ json: { order: 'c1' } }], runtime, { signal: controller.signal, ...(headerAuth ? { credentials: { httpHeaderAuth: HEADER_AUTH } } : {}) });

				expect(run.status).toBe('canceled');
				expect(faults.requestsOf('cancel-request')).toHaveLength(1);
				await expectAllClosed(faults.requestsOf('cancel-request'));
				expect(runtime.sleeps).toHaveLength(0);
				rows.push({ fault: 'Execution cancelled during a request', method: `GET${headerAuth ? ', Header Auth' : ''}`, retried: 'no: cancelled', endsOn: 'none: the execution is canceled; the connection closed', seen: '1', attempts: 1 });
			} finally {
				await faults.close();
			}
		});

		it('during a backoff wait: the wait ends at once and the retry is never sent', async () => {
			const controller = new AbortController();
			const faults = await startFaultServer();
			try {
				const base = createVirtualRuntime(4);
				let waits = 0;
				// a wait that lasts until the execution is cancelled: cancel as soon as it starts
				const runtime: Runtime = {
					...base,
					sleep: (_ms, signal) =>
						new Promise<void>((_resolve, reject) => {
							waits++;
							if (signal?.aborted) return reject(new CancelledError());
							signal?.addEventListener('abort', () => reject(new CancelledError()), { once: true });
							controller.abort();
						}),
				};
				const wf = httpWorkflow({ url: `${faults.url}/status/cancel-wait`, maxAttempts: 5, sharedLimits: { budget: false } }, { onError: 'continueErrorOutput' });
				const run = await runHttp(wf, [{ json: { order: 'c2' } }], runtime, { signal: controller.signal });

				expect(run.status).toBe('canceled');
				expect(waits).toBe(1);
				expect(faults.requestsOf('cancel-wait')).toHaveLength(1);
				rows.push({ fault: 'Execution cancelled during a backoff wait', method: 'GET', retried: 'no: cancelled', endsOn: 'none: the execution is canceled', seen: '1', attempts: 1 });
			} finally {
				await faults.close();
			}
		});
	});

	describe('Redis stopped while the budget is in use', () => {
		const REDIS_SERVER_BIN = process.env.RH_TEST_REDIS_SERVER ?? 'redis-server';
		const HAVE_REDIS_SERVER = spawnSync(REDIS_SERVER_BIN, ['--version'], { stdio: 'ignore' }).status === 0;
		afterAll(async () => closeRedisStateStores());
		const title = 'every item still ends on an output: the budget falls back to memory';
		if (!HAVE_REDIS_SERVER) {
			skipped.push('Redis stopped');
			it.skip(`${title} (skipped: no ${REDIS_SERVER_BIN} binary to start a dedicated Redis)`, () => undefined);
			return;
		}
		it(title, async () => {
			const items = 20;
			const redis = await startDedicatedRedis(REDIS_SERVER_BIN);
			let stopped: Promise<void> | undefined;
			let keysBeforeStop: string[] = [];
			const faults = await startFaultServer({
				onRequest: () => {
					// half way through the first attempts, while items hold and ask the budget
					if (faults.log.length === items / 2) {
						stopped = (async () => {
							const admin = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true, maxRetriesPerRequest: 0 });
							keysBeforeStop = await admin.keys('*');
							admin.disconnect();
							await redis.stop();
						})();
					}
				},
			});
			try {
				const runtime = createVirtualRuntime(5, { frozen: true });
				const wf = httpWorkflow(
					{ url: `={{ "${faults.url}/status/redis-" + $json.n + "?times=1" }}`, maxAttempts: 3, stateStore: 'redis', sharedLimits: { budgetMinRetries: 1000 }, options: { maxConcurrency: 4 } },
					{ onError: 'continueErrorOutput', credentials: { resilientHttpRedis: { id: 'r', name: 'redis' } } },
				);
				const input = Array.from({ length: items }, (_, n) => ({ json: { n } }));
				const credential = { host: '127.0.0.1', port: redis.port, database: 0, user: '', password: '', ssl: false };
				const run = await runHttp(wf, input, runtime, { credentialTypes: [new ResilientHttpRedis()], credentials: { resilientHttpRedis: credential } });
				await stopped;

				expect(stopped).toBeDefined();
				// the budget was in Redis until it stopped
				expect(keysBeforeStop.some((k) => k.includes('traffic'))).toBe(true);
				expect(run.status).toBe('success');
				expect(run.jsonOf('HTTP', 1)).toEqual([]);
				const ok = run.jsonOf('HTTP', 0);
				expect(ok.map((o) => o.key)).toEqual(input.map((i) => `redis-${i.json.n}`));
				for (const o of ok) expect(storyOf(o).attempts).toBe(2);
				expect(faults.log).toHaveLength(2 * items);
				// the node's process-wide store for this Redis went through an outage and answered from memory
				const store = getRedisStateStoreWithFallback(redisConnectionFromCredential(credential), { warn: () => undefined });
				expect(store.outageCount).toBeGreaterThanOrEqual(1);
				expect(store.lastSource()).toBe('memory-fallback');
				rows.push({ fault: `Redis killed half way (${items} items, budget in Redis)`, method: 'GET', retried: 'yes: the budget answers from memory', endsOn: `success output (${items} of ${items})`, seen: `${2 * items}`, attempts: 2 });
			} finally {
				await faults.close();
				await redis.stop();
				redis.cleanup();
			}
		});
	});

});

describe('docs/testing.md', () => {
	// decided when the cases above were collected: a skipped case has no row to show
	(skipped.length > 0 ? it.skip : it)(
		skipped.length > 0 ? `the Faults table (skipped: cases skipped here: ${skipped.join('; ')})` : 'the Faults table says what the fault tests assert',
		() => {
			expect(rows.length).toBe(CASES.length + 5);
			expectDocSection('faults', faultSectionMarkdown(rows));
		},
	);
});

/** A redis-server of the test's own on a free port, to kill while the budget is in use. */
async function startDedicatedRedis(bin: string): Promise<{ port: number; stop(): Promise<void>; cleanup(): void }> {
	const dir = mkdtempSync(path.join(tmpdir(), 'rh-fault-redis-'));
	const port = Number(new URL(await refusedUrl()).port);
	const child: ChildProcess = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
	for (let i = 0; ; i++) {
		if (await accepts(port)) break;
		if (i > 100) throw new Error(`redis-server did not start on port ${port}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return {
		port,
		stop: async () => {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGKILL');
			await exited;
		},
		cleanup: () => rmSync(dir, { recursive: true, force: true }),
	};
}

function accepts(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = createConnection(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

