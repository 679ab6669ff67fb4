/** Retry Story (On Failed Items, On Every Item, Off) read into the output settings, and the run's tally of retries. */
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

describe('the tally of a run', () => {
	it('says nothing when no item needed a retry', () => {
		const tally = new RetryTally();
		tally.add(0, { attempts: 1 });
		tally.add(1, { attempts: 1 });
		expect(tally.summary(2)).toBeUndefined();
	});

	it('counts the items that needed retries and their retries, pages of one item as one item', () => {
		const tally = new RetryTally();
		tally.add(0, { attempts: 3 });
		tally.add(1, { attempts: 1 });
		tally.add(2, { attempts: 2 }); // page 1 of item 2
		tally.add(2, { attempts: 4 }); // page 2 of item 2
		expect(tally.summary(10)).toBe('2 of 10 items needed retries (6 retries in all)');
	});

	it('speaks of one item and one retry in the singular', () => {
		const tally = new RetryTally();
		tally.add(0, { attempts: 2 });
		expect(tally.summary(1)).toBe('1 of 1 item needed retries (1 retry in all)');
	});
});
