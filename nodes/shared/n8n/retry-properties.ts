/** Backoff parameters shared by both nodes: same names, defaults and help text everywhere. */
import type { INodeProperties } from 'n8n-workflow';
import { RETRY_DEFAULTS, RETRY_LIMITS } from '../core/defaults';

export const baseDelayProperty: INodeProperties = {
	displayName: 'Base Delay (Ms)',
	name: 'baseDelay',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: RETRY_DEFAULTS.baseDelayMs,
	description: 'The backoff before the first retry; it doubles on each further retry, up to Max Delay',
};

export const maxDelayProperty: INodeProperties = {
	displayName: 'Max Delay (Ms)',
	name: 'maxDelay',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: RETRY_DEFAULTS.maxDelayMs,
	description: 'No backoff wait is longer than this',
};

export const jitterProperty: INodeProperties = {
	displayName: 'Jitter',
	name: 'jitter',
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
	displayName: 'Retry On Status Codes',
	name: 'retryOnStatusCodes',
	type: 'string',
	default: RETRY_DEFAULTS.retryOnStatuses,
	placeholder: '408, 429, 5xx',
	description:
		'Response statuses worth another try, comma-separated. Classes like 5xx and ranges like 500-504 are accepted. Every other status is final at once: a 400, 401, 403, 404 or 422 needs a fixed request, not a retry.',
};

export const maxAttemptsProperty: INodeProperties = {
	displayName: 'Max Attempts',
	name: 'maxAttempts',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: RETRY_LIMITS.maxAttempts },
	default: RETRY_DEFAULTS.maxAttempts,
	description: 'How many times to try each item in all, the first attempt included. 1 turns retries off.',
};
