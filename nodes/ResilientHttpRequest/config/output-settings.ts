/** What an item's answer looks like: Options > Response (format, full response, Never Error) and the retry story's field. */
import type { IDataObject } from 'n8n-workflow';
import { RETRY_DEFAULTS } from '../../shared/core/defaults';
import type { ResponseSettings } from '../output/response';

export interface OutputSettings {
	response: ResponseSettings;
	/** Options > Response > Never Error: a final error response is an answer, not a failure. */
	neverError: boolean;
	/** Retry Options > Retry Story Field ('' for none). */
	storyField: string;
}

export function readOutputSettings(options: IDataObject, retryOptions: IDataObject): OutputSettings {
	const response = ((options.response as IDataObject | undefined)?.response ?? {}) as IDataObject;
	const neverError = response.neverError === true;
	return {
		response: {
			format: (response.responseFormat as ResponseSettings['format']) ?? 'autodetect',
			fullResponse: response.fullResponse === true,
			outputPropertyName: String(response.outputPropertyName ?? 'data'),
			neverError,
		},
		neverError,
		storyField: String(retryOptions.retryStoryField ?? RETRY_DEFAULTS.storyField).trim(),
	};
}
