/**
 * The retry parameters both nodes share, declared once: the editor's property (display name,
 * limits, default, help) and the validation that reads it, both from RETRY_PARAMETERS, so the
 * editor and the runtime accept the same values. Each node passes its raw values (from where its
 * parameters sit) and gets the policy object the engine takes.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { JITTER_STRATEGIES, type BackoffParams, type JitterStrategy } from '../core/backoff';
import { parseStatusList, type StatusSet } from '../core/classify';
import type { DecisionPolicy } from '../core/decide';
import { POLL_DEFAULTS, RETRY_DEFAULTS, RETRY_PARAMETERS } from '../core/defaults';
import type { PollParams } from '../core/poll';
import { numberParameter, parameterError } from './parameters';

type NumberSpec = { name: string; displayName: string; min: number; max: number; integer: boolean };

/** A number property whose editor limits are the runtime's. */
function numberProperty(spec: NumberSpec, defaultValue: number, description: string): INodeProperties {
	return {
		displayName: spec.displayName,
		name: spec.name,
		type: 'number',
		typeOptions: { minValue: spec.min, maxValue: spec.max, ...(spec.integer ? { numberPrecision: 0 } : {}) },
		default: defaultValue,
		description,
	};
}

function readNumber(ctx: IExecuteFunctions, i: number, spec: NumberSpec, raw: unknown): number {
	return numberParameter(ctx, i, spec.displayName, raw, { integer: spec.integer, min: spec.min, max: spec.max });
}

const P = RETRY_PARAMETERS;

export const maxAttemptsProperty = numberProperty(P.maxAttempts, RETRY_DEFAULTS.maxAttempts, 'How many times to try each item in all, the first attempt included. 1 turns retries off.');

export const baseDelayProperty = numberProperty(P.baseDelay, RETRY_DEFAULTS.baseDelayMs, 'The backoff before the first retry; it doubles on each further retry, up to Max Delay');

export const maxDelayProperty = numberProperty(P.maxDelay, RETRY_DEFAULTS.maxDelayMs, 'No backoff wait is longer than this');

/** Each node counts the deadline from its own start (the HTTP node: the first attempt; Backoff Delay: the first failure) and says so. */
export function totalDeadlineProperty(defaultValue: number, description: string): INodeProperties {
	return numberProperty(P.totalDeadline, defaultValue, description);
}

/** Each node has its own default (the HTTP node sleeps in process; Backoff Delay can wait in n8n's waiting state). */
export function maxServerDelayProperty(defaultValue: number, description: string): INodeProperties {
	return numberProperty(P.maxServerDelay, defaultValue, description);
}

export const jitterProperty: INodeProperties = {
	displayName: P.jitter.displayName,
	name: P.jitter.name,
	type: 'options',
	options: [
		{ name: 'Full', value: 'full', description: 'Random between 0 and the backoff: the least load on a struggling server (AWS recommendation)' },
		{ name: 'Equal', value: 'equal', description: 'Half the backoff plus a random half: keeps a minimum wait' },
		{ name: 'Decorrelated', value: 'decorrelated', description: 'Random between the base and three times the previous delay, capped without piling up at the cap' },
		{ name: 'None', value: 'none', description: 'Exact exponential backoff: clients that failed together retry together' },
	],
	default: RETRY_DEFAULTS.jitter,
	description: 'How the backoff is randomised so that many items or workflows do not retry in lock-step',
};

export const retryOnStatusCodesProperty: INodeProperties = {
	displayName: P.retryOnStatusCodes.displayName,
	name: P.retryOnStatusCodes.name,
	type: 'string',
	default: RETRY_DEFAULTS.retryOnStatuses,
	placeholder: '408, 429, 5xx',
	description:
		'Response statuses worth another try, comma-separated. Classes like 5xx and ranges like 500-504 are accepted. Every other status is final at once (a 400, 401, 403, 404 or 422 needs a fixed request, not a retry), unless the server says otherwise and Obey Server Retry Hints is on.',
};

export const obeyServerHintsProperty: INodeProperties = {
	displayName: P.obeyServerHints.displayName,
	name: P.obeyServerHints.name,
	type: 'boolean',
	default: RETRY_DEFAULTS.obeyServerHints,
	description:
		'Whether the server\'s own word counts beside Retry On Status Codes: x-should-retry and Stripe-Should-Retry (true or false), a wait or a spent quota in a JSON error body (retry_after, HubSpot DAILY), a 403 that is a rate limit (GitHub, Google) and a 413 with Retry-After. Off: only the status list decides.',
};

function obeyServerHintsParameter(ctx: IExecuteFunctions, i: number, raw: unknown): boolean {
	if (typeof raw !== 'boolean') parameterError(ctx, i, P.obeyServerHints.displayName, `must be true or false, got ${JSON.stringify(raw)}`);
	return raw;
}

function statusListParameter(ctx: IExecuteFunctions, i: number, raw: unknown): StatusSet {
	try {
		return parseStatusList(String(raw));
	} catch (error) {
		parameterError(ctx, i, P.retryOnStatusCodes.displayName, `is invalid: ${(error as Error).message}`);
	}
}

function jitterParameter(ctx: IExecuteFunctions, i: number, raw: unknown): JitterStrategy {
	if (!JITTER_STRATEGIES.includes(raw as JitterStrategy)) parameterError(ctx, i, P.jitter.displayName, `must be one of ${JITTER_STRATEGIES.join(', ')}, got ${JSON.stringify(raw)}`);
	return raw as JitterStrategy;
}

/** The raw values of the shared parameters, each node's defaults already applied. */
interface RawRetryParameters {
	maxAttempts: unknown;
	jitter: unknown;
	baseDelay: unknown;
	maxDelay: unknown;
	totalDeadline: unknown;
	maxServerDelay: unknown;
}

function readBackoff(ctx: IExecuteFunctions, i: number, raw: RawRetryParameters): BackoffParams {
	const strategy = jitterParameter(ctx, i, raw.jitter);
	const baseDelayMs = readNumber(ctx, i, P.baseDelay, raw.baseDelay);
	const maxDelayMs = readNumber(ctx, i, P.maxDelay, raw.maxDelay);
	// the base (the first wait) cannot exceed the cap of every wait
	if (baseDelayMs > maxDelayMs) parameterError(ctx, i, P.baseDelay.displayName, `must not be more than ${P.maxDelay.displayName} (${maxDelayMs}), got ${baseDelayMs}`);
	return { strategy, baseDelayMs, maxDelayMs };
}

/** The engine's decision policy, read and validated once at the node's entry. */
function readDecisionPolicy(ctx: IExecuteFunctions, i: number, raw: RawRetryParameters): Omit<DecisionPolicy, 'safety'> {
	return {
		maxAttempts: readNumber(ctx, i, P.maxAttempts, raw.maxAttempts),
		backoff: readBackoff(ctx, i, raw),
		totalDeadlineMs: readNumber(ctx, i, P.totalDeadline, raw.totalDeadline),
		maxServerDelayMs: readNumber(ctx, i, P.maxServerDelay, raw.maxServerDelay),
	};
}

/** What the two nodes share of a retry configuration: the decision policy and how a failure is classified. */
interface SharedRetryParameters {
	policy: Omit<DecisionPolicy, 'safety'>;
	retryOn: StatusSet;
	obeyServerHints: boolean;
}

/** Where a node keeps the shared parameters, and its own defaults for those whose default differs. */
interface SharedRetrySource {
	/** The collection (already read) that holds Jitter, Base Delay, Max Delay, the deadlines and Obey Server Retry Hints. */
	collection: IDataObject;
	totalDeadlineMs: number;
	maxServerDelayMs: number;
	/** Retry On Status Codes as the node has it (Backoff Delay ignores it when it retries every failure). */
	retryOnStatusCodes: unknown;
}

/**
 * The one reader of the shared retry parameters, for both nodes: Max Attempts at the top level,
 * the rest in the node's collection. Validated here, naming the parameter and the item.
 */
export function readSharedRetryParameters(ctx: IExecuteFunctions, i: number, source: SharedRetrySource): SharedRetryParameters {
	const value = (name: string, fallback: unknown) => (source.collection[name] === undefined ? fallback : source.collection[name]);
	const policy = readDecisionPolicy(ctx, i, {
		maxAttempts: ctx.getNodeParameter('maxAttempts', i, RETRY_DEFAULTS.maxAttempts),
		jitter: value('jitter', RETRY_DEFAULTS.jitter),
		baseDelay: value('baseDelay', RETRY_DEFAULTS.baseDelayMs),
		maxDelay: value('maxDelay', RETRY_DEFAULTS.maxDelayMs),
		totalDeadline: value('totalDeadline', source.totalDeadlineMs),
		maxServerDelay: value('maxServerDelay', source.maxServerDelayMs),
	});
	return {
		policy,
		retryOn: statusListParameter(ctx, i, source.retryOnStatusCodes),
		obeyServerHints: obeyServerHintsParameter(ctx, i, value('obeyServerHints', RETRY_DEFAULTS.obeyServerHints)),
	};
}

/** The polling pace, shared by Retry When (the HTTP node) and Backoff Delay's Poll Until Done. */
export const pollProperties: INodeProperties[] = [
	numberProperty(P.maxPollInterval, POLL_DEFAULTS.maxIntervalMs, 'Polling: no wait between two polls is longer than this'),
	numberProperty(P.pollInterval, POLL_DEFAULTS.intervalMs, 'Polling: the wait after the first answer that is not done yet, when it gives no Retry-After'),
	{
		...numberProperty(P.pollGrowth, POLL_DEFAULTS.growth, 'Polling: each further wait is the one before times this, up to Max Poll Interval. 1 polls at a fixed interval.'),
		typeOptions: { minValue: P.pollGrowth.min, maxValue: P.pollGrowth.max, numberPrecision: 2 },
	},
];

/**
 * The polling pace of an item, validated, each parameter named as the node places it (`prefix`).
 * Polling is bounded by time: a total deadline of 0 (none) is refused, saying what polls (`why`).
 */
export function readPollParameters(ctx: IExecuteFunctions, i: number, collection: IDataObject, labels: { prefix: string; why: string }, totalDeadlineMs: number): PollParams {
	if (totalDeadlineMs === 0) {
		parameterError(ctx, i, `${labels.prefix}${P.totalDeadline.displayName}`, `is 0 (none), but ${labels.why} polls until the total deadline: give it one (e.g. 600000 for 10 minutes)`);
	}
	const value = (name: string, fallback: number) => (collection[name] === undefined ? fallback : collection[name]);
	const read = (spec: (typeof P)['pollInterval' | 'pollGrowth' | 'maxPollInterval'], fallback: number) =>
		numberParameter(ctx, i, `${labels.prefix}${spec.displayName}`, value(spec.name, fallback), { integer: spec.integer, min: spec.min, max: spec.max });
	const intervalMs = read(P.pollInterval, POLL_DEFAULTS.intervalMs);
	const growth = read(P.pollGrowth, POLL_DEFAULTS.growth);
	const maxIntervalMs = read(P.maxPollInterval, POLL_DEFAULTS.maxIntervalMs);
	if (maxIntervalMs < intervalMs) parameterError(ctx, i, `${labels.prefix}${P.maxPollInterval.displayName}`, `(${maxIntervalMs}) is shorter than ${P.pollInterval.displayName} (${intervalMs})`);
	return { intervalMs, growth, maxIntervalMs };
}
