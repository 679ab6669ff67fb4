/**
 * The retry parameters of one item (Max Attempts, Retry On Status Codes and the Retry Options
 * collection): the retry loop's policy and how an attempt's failure is classified. The parameters
 * Backoff Delay shares are read by the shared reader, as Backoff Delay reads them.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { StatusSet } from '../../shared/core/classify';
import { RETRY_DEFAULTS, RETRY_PARAMETERS } from '../../shared/core/defaults';
import type { PollParams } from '../../shared/core/poll';
import type { RetryPolicy } from '../../shared/core/retry-loop';
import { numberParameter, parameterError } from '../../shared/n8n/parameters';
import { readPollParameters, readSharedRetryParameters } from '../../shared/n8n/retry-parameters';

export interface RetrySettings {
	/** The retry loop's policy but for the request itself (method, key), which the item's config adds. */
	policy: Omit<RetryPolicy, 'method' | 'idempotencyKey' | 'idempotencyKeyOwner'>;
	/** How the attempt classifies a status and reads the server's wait. */
	retryOn: StatusSet;
	readRateLimitHeaders: boolean;
	/** Obey Server Retry Hints (server-signals.ts). */
	obeyServerHints: boolean;
	/** Retry When, raw (`={{ ... }}`): evaluated on each 2xx answer; absent when empty. */
	retryWhen?: string;
	/** Retry When Body Is Not JSON (Response Format JSON only): a 2xx that does not parse is a transient failure. */
	retryNotJson: boolean;
	/** Follow Asynchronous Operations: a 202 with a status URL is polled until the operation ends (polling/async-operation.ts). */
	followOperations: boolean;
}

/** Retry When, raw; undefined when empty. */
function readRetryWhen(ctx: IExecuteFunctions, i: number): string | undefined {
	// raw: n8n resolves it on each answer, with $response (see polling/retry-when.ts)
	const raw = ctx.getNodeParameter(RETRY_PARAMETERS.retryWhen.name, i, '', { rawExpressions: true });
	if (raw === '' || raw === undefined || raw === null) return undefined;
	if (typeof raw !== 'string' || !raw.trim().startsWith('=')) {
		parameterError(ctx, i, RETRY_PARAMETERS.retryWhen.displayName, 'must be an expression (e.g. {{ $response.body.status === "running" }}) that is true while the job is not done', 'Switch the field to Expression, or empty it to treat every 2xx answer as done.');
	}
	return raw;
}

function booleanOption(ctx: IExecuteFunctions, i: number, label: string, raw: unknown): boolean {
	if (typeof raw !== 'boolean') parameterError(ctx, i, label, `must be true or false, got ${JSON.stringify(raw)}`);
	return raw;
}

/** Retry When, Follow Asynchronous Operations, and the polling pace both use (read and checked only when one is on). */
function readPolling(ctx: IExecuteFunctions, i: number, retryOptions: IDataObject, totalDeadlineMs: number): { retryWhen?: string; followOperations: boolean; poll?: PollParams } {
	const retryWhen = readRetryWhen(ctx, i);
	const followOperations = booleanOption(ctx, i, 'Retry Options > Follow Asynchronous Operations', retryOptions.followAsyncOperations ?? false);
	if (retryWhen === undefined && !followOperations) return { followOperations };
	const why = retryWhen !== undefined ? RETRY_PARAMETERS.retryWhen.displayName : 'Follow Asynchronous Operations';
	const poll = readPollParameters(ctx, i, retryOptions, { prefix: 'Retry Options > ', why }, totalDeadlineMs);
	return { ...(retryWhen !== undefined ? { retryWhen } : {}), followOperations, poll };
}

/** Retry When Body Is Not JSON, which only means something where JSON was asked for. */
function readRetryNotJson(ctx: IExecuteFunctions, i: number, retryOptions: IDataObject, format: string): boolean {
	const on = booleanOption(ctx, i, 'Retry Options > Retry When Body Is Not JSON', retryOptions.retryNotJson ?? false);
	if (on && format !== 'json') {
		parameterError(ctx, i, 'Retry Options > Retry When Body Is Not JSON', `applies only when Options > Response > Response Format is JSON (it is ${JSON.stringify(format)})`, 'Set Response Format to JSON, or remove the option.');
	}
	return on;
}

export function readRetrySettings(ctx: IExecuteFunctions, i: number, retryOptions: IDataObject, format: string): RetrySettings {
	const shared = readSharedRetryParameters(ctx, i, {
		collection: retryOptions,
		totalDeadlineMs: RETRY_DEFAULTS.totalDeadlineMs,
		maxServerDelayMs: RETRY_DEFAULTS.maxServerDelayMs,
		retryOnStatusCodes: ctx.getNodeParameter('retryOnStatusCodes', i, RETRY_DEFAULTS.retryOnStatuses),
	});
	const polling = readPolling(ctx, i, retryOptions, shared.policy.totalDeadlineMs);
	return {
		policy: {
			...shared.policy,
			...(polling.poll ? { poll: polling.poll } : {}),
			attemptTimeoutMs: numberParameter(ctx, i, 'Attempt Timeout (Ms)', retryOptions.attemptTimeout ?? RETRY_DEFAULTS.attemptTimeoutMs, {}),
			allowUnsafeRetries: (retryOptions.allowUnsafeRetries ?? false) as boolean,
		},
		retryOn: shared.retryOn,
		readRateLimitHeaders: (retryOptions.readRateLimitHeaders ?? true) as boolean,
		obeyServerHints: shared.obeyServerHints,
		...(polling.retryWhen !== undefined ? { retryWhen: polling.retryWhen } : {}),
		followOperations: polling.followOperations,
		retryNotJson: readRetryNotJson(ctx, i, retryOptions, format),
	};
}
