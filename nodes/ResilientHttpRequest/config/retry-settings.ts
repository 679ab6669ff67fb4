/**
 * Reads and validates the retry and transport parameters of one item. Bad input fails with a
 * NodeOperationError that names the parameter and the item.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { StatusSet } from '../../shared/core/classify';
import { RETRY_DEFAULTS } from '../../shared/core/defaults';
import type { RetryPolicy } from '../../shared/core/retry-loop';
import { numberParameter, parameterError } from '../../shared/n8n/parameters';
import { obeyServerHintsParameter, readDecisionPolicy, statusListParameter } from '../../shared/n8n/retry-parameters';
import { GENERATED_KEY_BASES, headerNameProblem, idempotencyKeyProblem, parseFieldList, type GeneratedKeyBasis, type IdempotencyMode } from '../../shared/core/idempotency';
import type { ResponseSettings } from '../output/response';

export interface RetrySettings {
	/** The retry loop's policy but for the request itself (method, key), which request-spec reads. */
	policy: Omit<RetryPolicy, 'method' | 'idempotencyKey' | 'idempotencyKeyOwner'>;
	/** How the attempt classifies a status and reads the server's wait. */
	retryOn: StatusSet;
	readRateLimitHeaders: boolean;
	/** Obey Server Retry Hints (server-signals.ts). */
	obeyServerHints: boolean;
	idempotencyMode: IdempotencyMode;
	idempotencyHeader: string;
	/** Only for mode 'expression'. */
	idempotencyKey?: string;
	storyField: string;
	neverError: boolean;
	response: ResponseSettings;
}

export function readRetrySettings(ctx: IExecuteFunctions, i: number): RetrySettings {
	const retryOptions = ctx.getNodeParameter('retryOptions', i, {}) as IDataObject;
	const opt = <T>(name: string, fallback: T): T => (retryOptions[name] === undefined ? fallback : (retryOptions[name] as T));
	const decision = readDecisionPolicy(ctx, i, {
		maxAttempts: ctx.getNodeParameter('maxAttempts', i, RETRY_DEFAULTS.maxAttempts),
		jitter: opt('jitter', RETRY_DEFAULTS.jitter),
		baseDelay: opt('baseDelay', RETRY_DEFAULTS.baseDelayMs),
		maxDelay: opt('maxDelay', RETRY_DEFAULTS.maxDelayMs),
		totalDeadline: opt('totalDeadline', RETRY_DEFAULTS.totalDeadlineMs),
		maxServerDelay: opt('maxServerDelay', RETRY_DEFAULTS.maxServerDelayMs),
	});
	const retryOn = statusListParameter(ctx, i, ctx.getNodeParameter('retryOnStatusCodes', i, RETRY_DEFAULTS.retryOnStatuses));

	const idempotencyMode = ctx.getNodeParameter('idempotencyKeyMode', i, 'off') as IdempotencyMode;
	const idempotencyHeader = String(opt('idempotencyHeaderName', RETRY_DEFAULTS.idempotencyHeader)).trim();
	const headerProblem = headerNameProblem(idempotencyHeader);
	if (idempotencyMode !== 'off' && headerProblem) parameterError(ctx, i, 'Header Name for Idempotency Key', `is invalid: ${headerProblem}`);
	let idempotencyKey: string | undefined;
	if (idempotencyMode === 'expression') {
		const raw = ctx.getNodeParameter('idempotencyKey', i, '') as unknown;
		const problem = idempotencyKeyProblem(raw);
		if (problem) parameterError(ctx, i, 'Key', `(the idempotency key) ${problem}`);
		idempotencyKey = String(raw);
	}

	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const response = ((options.response as IDataObject | undefined)?.response ?? {}) as IDataObject;
	return {
		policy: {
			...decision,
			attemptTimeoutMs: numberParameter(ctx, i, 'Attempt Timeout (Ms)', opt('attemptTimeout', RETRY_DEFAULTS.attemptTimeoutMs), {}),
			allowUnsafeRetries: opt('allowUnsafeRetries', false),
		},
		retryOn,
		readRateLimitHeaders: opt('readRateLimitHeaders', true),
		obeyServerHints: obeyServerHintsParameter(ctx, i, opt('obeyServerHints', RETRY_DEFAULTS.obeyServerHints)),
		idempotencyMode,
		idempotencyHeader,
		...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
		storyField: String(opt('retryStoryField', RETRY_DEFAULTS.storyField)).trim(),
		neverError: response.neverError === true,
		response: {
			format: (response.responseFormat as ResponseSettings['format']) ?? 'autodetect',
			fullResponse: response.fullResponse === true,
			outputPropertyName: String(response.outputPropertyName ?? 'data'),
		},
	};
}

/** How Generate makes its keys (read for every item before any request: see idempotency-keys.ts). */
export type GeneratedKeySettings = { basis: 'random' } | { basis: 'itemData' } | { basis: 'fields'; fields: string[] };

export function readGeneratedKeySettings(ctx: IExecuteFunctions, i: number): GeneratedKeySettings {
	const basis = ctx.getNodeParameter('generatedKeyBasis', i, 'random') as GeneratedKeyBasis;
	if (!GENERATED_KEY_BASES.includes(basis)) parameterError(ctx, i, 'Key Based On', `must be one of ${GENERATED_KEY_BASES.join(', ')}, got ${JSON.stringify(basis)}`);
	if (basis !== 'fields') return { basis };
	const parsed = parseFieldList(ctx.getNodeParameter('keyFields', i, '') as unknown);
	if ('problem' in parsed) parameterError(ctx, i, 'Fields to Hash', parsed.problem);
	return { basis, fields: parsed.fields };
}

export interface ScheduleSettings {
	/** Max Items in Flight: the ceiling of the adaptive window, or the fixed limit. */
	concurrency: number;
	/** Adapt Items in Flight: start lower and follow the API's back-pressure (AIMD). */
	adaptive: boolean;
	batchSize: number;
	batchIntervalMs: number;
}

/**
 * Default ceiling of items in flight. A ceiling still protects an API from an unbounded burst of one
 * execution (HTTP Request has none); the adaptive window gets there only while the API answers well.
 */
export const DEFAULT_MAX_ITEMS_IN_FLIGHT = 1000;

/** Node-wide settings (read from the first item, as HTTP Request does for batching). */
export function readScheduleSettings(ctx: IExecuteFunctions): ScheduleSettings {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const batch = ((options.batching as IDataObject | undefined)?.batch ?? {}) as IDataObject;
	const concurrency = numberParameter(ctx, 0, 'Max Items in Flight', options.maxConcurrency ?? DEFAULT_MAX_ITEMS_IN_FLIGHT, { integer: true, min: 1, max: 10_000 });
	const adaptive = options.adaptConcurrency ?? true;
	if (typeof adaptive !== 'boolean') parameterError(ctx, 0, 'Adapt Items in Flight', `must be true or false, got ${JSON.stringify(adaptive)}`);
	const rawSize = batch.batchSize === undefined ? -1 : numberParameter(ctx, 0, 'Items per Batch', batch.batchSize, { integer: true, min: -1, max: 1_000_000 });
	return {
		concurrency,
		// batching is a pace the user chose (n items every t ms): the window must not slow it further
		adaptive: adaptive && rawSize <= 0,
		batchSize: rawSize === 0 ? 1 : rawSize,
		batchIntervalMs: batch.batchInterval === undefined ? 0 : numberParameter(ctx, 0, 'Batch Interval (ms)', batch.batchInterval, {}),
	};
}
