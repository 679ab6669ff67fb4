/** What an item's answer looks like: Options > Response (format, full response, Never Error) and where the retry story goes. */
import type { IDataObject } from 'n8n-workflow';
import { RETRY_DEFAULTS, type RetryStoryPlacement } from '../../shared/core/defaults';
import type { ResponseSettings } from '../types';

export interface OutputSettings {
	response: ResponseSettings;
	/** Options > Response > Never Error: a final error response is an answer, not a failure. */
	neverError: boolean;
	/** The field a success item's story goes in ('' for none: Retry Story is not On Every Item). */
	storyField: string;
	/** The field a failed item's story goes in ('' for none: Retry Story is Off). */
	failureStoryField: string;
}

const PLACEMENTS: readonly RetryStoryPlacement[] = ['failedItems', 'everyItem', 'off'];

export function readOutputSettings(options: IDataObject, retryOptions: IDataObject): OutputSettings {
	const response = ((options.response as IDataObject | undefined)?.response ?? {}) as IDataObject;
	const neverError = response.neverError === true;
	const field = String(retryOptions.retryStoryField ?? RETRY_DEFAULTS.storyField).trim();
	const raw = retryOptions.retryStory ?? RETRY_DEFAULTS.story;
	// an unknown value (a later version's) keeps the safe choice: a success item stays HTTP Request's
	const placement = PLACEMENTS.includes(raw as RetryStoryPlacement) ? (raw as RetryStoryPlacement) : RETRY_DEFAULTS.story;
	return {
		response: {
			format: (response.responseFormat as ResponseSettings['format']) ?? 'autodetect',
			fullResponse: response.fullResponse === true,
			outputPropertyName: String(response.outputPropertyName ?? 'data'),
			neverError,
		},
		neverError,
		storyField: placement === 'everyItem' ? field : '',
		failureStoryField: placement === 'off' ? '' : field,
	};
}
