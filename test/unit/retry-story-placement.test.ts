/** Retry Story (On Failed Items, On Every Item, Off) read into the output settings, and the run's tally of retries. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { readOutputSettings } from '../../nodes/ResilientHttpRequest/config/output-settings';
import { RetryTally } from '../../nodes/ResilientHttpRequest/output/retry-tally';

describe('Retry Story', () => {
	it.each([
		[{}, '', '_retry'],
		[{ retryStory: 'failedItems' }, '', '_retry'],
		[{ retryStory: 'everyItem' }, '_retry', '_retry'],
		[{ retryStory: 'off' }, '', ''],
		[{ retryStory: 'everyItem', retryStoryField: ' story ' }, 'story', 'story'],
		// an empty field was the way to turn the story off before Retry Story existed
		[{ retryStory: 'everyItem', retryStoryField: '' }, '', ''],
		// a value this version does not know keeps success items as HTTP Request's
		[{ retryStory: 'somewhere' }, '', '_retry'],
	])('%j: success items in %j, failed items in %j', (retryOptions, success, failure) => {
		const settings = readOutputSettings({}, retryOptions);
		expect(settings.storyField).toBe(success);
		expect(settings.failureStoryField).toBe(failure);
	});
});

/** Retry Story On Failed Items, in _retry: the default. */
const DEFAULT_FIELDS = { storyField: '', failureStoryField: '_retry' };

describe('the tally of a run', () => {
	it('says nothing when no item needed a retry', () => {
		const tally = new RetryTally();
		tally.add(0, { attempts: 1 }, DEFAULT_FIELDS);
		tally.add(1, { attempts: 1 }, DEFAULT_FIELDS);
		expect(tally.summary(2)).toBeUndefined();
	});

	it('counts the items that needed retries and their retries, pages of one item as one item', () => {
		const tally = new RetryTally();
		tally.add(0, { attempts: 3 }, DEFAULT_FIELDS);
		tally.add(1, { attempts: 1 }, DEFAULT_FIELDS);
		tally.add(2, { attempts: 2 }, DEFAULT_FIELDS); // page 1 of item 2
		tally.add(2, { attempts: 4 }, DEFAULT_FIELDS); // page 2 of item 2
		expect(tally.summary(10)).toBe('2 of 10 items needed retries (6 retries in all)');
	});

	it('speaks of one item and one retry in the singular', () => {
		const tally = new RetryTally();
		tally.add(0, { attempts: 2 }, DEFAULT_FIELDS);
		expect(tally.summary(1)).toBe('1 of 1 item needed retries (1 retry in all)');
	});

	describe("the output panel's hint says where the retries are to be read", () => {
		/** The hint `report` gives for one retried item whose story goes to `fields`. */
		function hintFor(fields: { storyField: string; failureStoryField: string }): string | undefined {
			const hints: Array<{ message: string }> = [];
			const ctx = { addExecutionHints: (...added: Array<{ message: string }>) => hints.push(...added), logger: { info: () => undefined }, getNode: () => ({ name: 'HTTP' }) };
			const tally = new RetryTally();
			tally.add(0, { attempts: 3 }, fields);
			tally.add(1, { attempts: 1 }, fields);
			tally.report(ctx as unknown as IExecuteFunctions, 2);
			return hints[0]?.message;
		}

		it.each([
			['On Failed Items (the default)', DEFAULT_FIELDS, '1 of 2 items needed retries (2 retries in all). A failed item carries its retries in error._retry; to see them on every item, set Retry Options > Retry Story to On Every Item.'],
			['On Every Item', { storyField: '_retry', failureStoryField: '_retry' }, "1 of 2 items needed retries (2 retries in all). Each item's retries are in its _retry field (a failed item's in error._retry)."],
			['On Every Item, in a field of its own', { storyField: 'story', failureStoryField: 'story' }, "1 of 2 items needed retries (2 retries in all). Each item's retries are in its story field (a failed item's in error.story)."],
			['Off', { storyField: '', failureStoryField: '' }, '1 of 2 items needed retries (2 retries in all). Retry Story is Off, so no item carries its retries; to see them on every item, set Retry Options > Retry Story to On Every Item.'],
		])('%s', (_placement, fields, hint) => {
			expect(hintFor(fields)).toBe(hint);
		});
	});
});
