import { classifyNetworkError, classifyStatus, parseStatusList, type AttemptFailure } from '../../nodes/shared/core/classify';
import { isIdempotentMethod, isSafeToRetry, type SafetyContext } from '../../nodes/shared/core/method-safety';

const maybeReached: AttemptFailure = classifyNetworkError('ECONNRESET', 'read ECONNRESET')!;
const neverReached: AttemptFailure = classifyNetworkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9')!;
const answered: AttemptFailure = classifyStatus(503, 'Service Unavailable', parseStatusList('503'))!;
const timedOut: AttemptFailure = classifyNetworkError('ETIMEDOUT', 'timeout')!;

const ctx = (method: string, over: Partial<SafetyContext> = {}): SafetyContext => ({ method, hasIdempotencyKey: false, allowUnsafeRetries: false, ...over });

describe('isIdempotentMethod', () => {
	// the WebDAV methods HTTP Request offers are idempotent in the IANA HTTP Method Registry
	it.each(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'get', 'Put', 'delete', 'COPY', 'MKCOL', 'MOVE', 'PROPFIND', 'report'])('%s is idempotent', (m) => {
		expect(isIdempotentMethod(m)).toBe(true);
	});
	it.each(['POST', 'PATCH', 'post', 'patch', 'CONNECT', 'LOCK', ''])('%j is not', (m) => {
		expect(isIdempotentMethod(m)).toBe(false);
	});
});

describe('isSafeToRetry', () => {
	const failures: Array<[string, AttemptFailure]> = [
		['maybe reached (ECONNRESET)', maybeReached],
		['timed out', timedOut],
		['answered 503', answered],
	];

	describe.each(failures)('after a failure that %s', (_label, failure) => {
		it.each(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'get'])('%s is safe', (method) => {
			const verdict = isSafeToRetry(failure, ctx(method));
			expect(verdict.safe).toBe(true);
			expect(verdict.why).toBe(`${method.toUpperCase()} is idempotent`);
		});

		it.each(['POST', 'PATCH', 'patch'])('%s is not safe without a key or permission', (method) => {
			expect(isSafeToRetry(failure, ctx(method)).safe).toBe(false);
		});

		it.each(['POST', 'PATCH'])('%s is safe with an idempotency key', (method) => {
			expect(isSafeToRetry(failure, ctx(method, { hasIdempotencyKey: true }))).toEqual({ safe: true, why: 'an idempotency key is sent' });
		});

		it.each(['POST', 'PATCH'])('%s is safe when unsafe retries are allowed', (method) => {
			expect(isSafeToRetry(failure, ctx(method, { allowUnsafeRetries: true }))).toEqual({ safe: true, why: 'unsafe retries are allowed' });
		});
	});

	it.each(['GET', 'POST', 'PATCH', 'CONNECT', 'whatever'])('a request that never reached the server is safe for %s', (method) => {
		expect(isSafeToRetry(neverReached, ctx(method))).toEqual({ safe: true, why: 'the request never reached the server' });
		const tlsReset = classifyNetworkError('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established')!;
		expect(isSafeToRetry(tlsReset, ctx(method)).safe).toBe(true);
	});

	it.each(['POST', 'PATCH'])('a 429 is safe to retry for %s: the server refused it without processing it', (method) => {
		const refused = classifyStatus(429, 'Too Many Requests', parseStatusList('429'))!;
		expect(isSafeToRetry(refused, ctx(method))).toEqual({ safe: true, why: 'the server refused the request without processing it (429)' });
	});

	it('the unsafe message names the method and says the server may have processed it', () => {
		const verdict = isSafeToRetry(maybeReached, ctx('post'));
		expect(verdict.safe).toBe(false);
		expect(verdict.why).toMatch(/^POST is not idempotent/);
		expect(verdict.why).toContain('no idempotency key is sent');
		expect(verdict.why).toContain('the server may have processed it');
		expect(verdict.why).toContain('Idempotency Key');
		expect(verdict.why).toContain('Retry Non-Idempotent Requests');
		expect(isSafeToRetry(timedOut, ctx('PATCH')).why).toMatch(/^PATCH is not idempotent.*may have processed it/);
	});

	it('after a status, the unsafe message names the method and the response', () => {
		const verdict = isSafeToRetry(answered, ctx('PATCH'));
		expect(verdict.safe).toBe(false);
		expect(verdict.why).toMatch(/^PATCH is not idempotent/);
		expect(verdict.why).toContain('the server answered 503 Service Unavailable');
	});
});
