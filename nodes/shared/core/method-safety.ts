import type { AttemptFailure } from './classify';

/**
 * Idempotent methods: sending them twice has the effect of sending them once. RFC 9110's, and the
 * WebDAV methods HTTP Request offers, idempotent per the IANA HTTP Method Registry (RFC 4918, 3253).
 */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'COPY', 'MKCOL', 'MOVE', 'PROPFIND', 'REPORT']);

export function isIdempotentMethod(method: string): boolean {
	return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

export interface SafetyContext {
	method: string;
	/** An idempotency key is sent with every attempt of this item. */
	hasIdempotencyKey: boolean;
	/** The user explicitly allowed retrying non-idempotent requests without a key. */
	allowUnsafeRetries: boolean;
	/** The request asked for a streamed answer (`"stream": true`). */
	streamed?: boolean;
}

/** Node's code for a response whose body stopped before its end (send-attempt.ts ResponseCutError). */
const CUT_RESPONSE = 'ERR_STREAM_PREMATURE_CLOSE';

type SafetyVerdict = { safe: true; why: string } | { safe: false; why: string };

/**
 * May this failed attempt be sent again without risking a duplicate side effect?
 * A request that provably never reached the server is always safe to send again.
 */
export function isSafeToRetry(failure: AttemptFailure, ctx: SafetyContext): SafetyVerdict {
	if (failure.reachedServer === 'no') return { safe: true, why: 'the request never reached the server' };
	if (failure.reachedServer === 'refused') return { safe: true, why: `the server refused the request without processing it (${failure.status ?? 'refused'})` };
	// whatever the method, key or setting: the answer was being generated and sent, and is paid for
	if (ctx.streamed && failure.code === CUT_RESPONSE) {
		return { safe: false, why: 'its streamed answer broke off after the first bytes: sent again, it would be generated (and paid for) again. A streamed answer is never retried once it has begun' };
	}
	if (isIdempotentMethod(ctx.method)) return { safe: true, why: `${ctx.method.toUpperCase()} is idempotent` };
	if (ctx.hasIdempotencyKey) return { safe: true, why: 'an idempotency key is sent' };
	if (ctx.allowUnsafeRetries) return { safe: true, why: 'unsafe retries are allowed' };
	const method = ctx.method.toUpperCase();
	const what =
		failure.reachedServer === 'maybe'
			? 'the connection failed after the request was sent, so the server may have processed it'
			: `the server answered ${failure.message}`;
	return {
		safe: false,
		why: `${method} is not idempotent and no idempotency key is sent: ${what}. Set an Idempotency Key, or enable "Retry Non-Idempotent Requests" if the API tolerates duplicates`,
	};
}
