/**
 * The retry parameters of one item (Max Attempts, Retry On Status Codes and the Retry Options
 * collection): the retry loop's policy and how an attempt's failure is classified. The parameters
 * Backoff Delay shares are read by the shared reader, as Backoff Delay reads them.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { StatusSet } from '../../shared/core/classify';
import { RETRY_DEFAULTS } from '../../shared/core/defaults';
import type { RetryPolicy } from '../../shared/core/retry-loop';
import { numberParameter } from '../../shared/n8n/parameters';
import { readSharedRetryParameters } from '../../shared/n8n/retry-parameters';

export interface RetrySettings {
	/** The retry loop's policy but for the request itself (method, key), which the item's config adds. */
	policy: Omit<RetryPolicy, 'method' | 'idempotencyKey' | 'idempotencyKeyOwner'>;
	/** How the attempt classifies a status and reads the server's wait. */
	retryOn: StatusSet;
	readRateLimitHeaders: boolean;
	/** Obey Server Retry Hints (server-signals.ts). */
	obeyServerHints: boolean;
}

export function readRetrySettings(ctx: IExecuteFunctions, i: number, retryOptions: IDataObject): RetrySettings {
	const shared = readSharedRetryParameters(ctx, i, {
		collection: retryOptions,
		totalDeadlineMs: RETRY_DEFAULTS.totalDeadlineMs,
		maxServerDelayMs: RETRY_DEFAULTS.maxServerDelayMs,
		retryOnStatusCodes: ctx.getNodeParameter('retryOnStatusCodes', i, RETRY_DEFAULTS.retryOnStatuses),
	});
	return {
		policy: {
			...shared.policy,
			attemptTimeoutMs: numberParameter(ctx, i, 'Attempt Timeout (Ms)', retryOptions.attemptTimeout ?? RETRY_DEFAULTS.attemptTimeoutMs, {}),
			allowUnsafeRetries: (retryOptions.allowUnsafeRetries ?? false) as boolean,
		},
		retryOn: shared.retryOn,
		readRateLimitHeaders: (retryOptions.readRateLimitHeaders ?? true) as boolean,
		obeyServerHints: shared.obeyServerHints,
	};
}
