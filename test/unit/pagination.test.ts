/** The pure part of pagination: the story over pages, each page's key, the resume point, $pageCount of a resumed item. */
import { combinePageStories, offsetPageCount, ownResumePoint, pageIdempotencyKey, PAGINATED_HISTORY_LIMIT } from '../../nodes/shared/core/pagination';
import { storyLines, type RetryStory } from '../../nodes/shared/core/retry-story';

const page = (attempts: number, stoppedBecause: RetryStory['stoppedBecause'] = 'success', extra: Partial<RetryStory> = {}): RetryStory => ({
	attempts,
	maxAttempts: 5,
	stoppedBecause,
	summary: stoppedBecause === 'success' ? 'Succeeded' : 'Stopped after 2 attempts: last response 503',
	totalDelayMs: (attempts - 1) * 100,
	elapsedMs: attempts * 10 + (attempts - 1) * 100,
	history: Array.from({ length: attempts }, (_, n) => ({ attempt: n + 1, startedAt: '2026-12-01T00:00:00.000Z', durationMs: 10, delayBeforeMs: n === 0 ? 0 : 100, status: n === attempts - 1 && stoppedBecause === 'success' ? 200 : 503 })),
	...extra,
});

describe('combinePageStories', () => {
	it('counts every page and keeps the records of the pages that were retried, numbered', () => {
		const story = combinePageStories([page(1), page(3), page(1)], { firstPage: 1, pagesBefore: 0, failed: false });
		expect(story).toMatchObject({ stoppedBecause: 'success', attempts: 5, pages: 3, totalDelayMs: 200, elapsedMs: 10 + 230 + 10 });
		expect(story.history.map((r) => [r.page, r.attempt, r.status])).toEqual([
			[2, 1, 503],
			[2, 2, 503],
			[2, 3, 200],
		]);
		expect(story.summary).toBe('Fetched 3 pages in 5 attempts, after waiting 200 ms for retries');
	});

	it('its counters agree: attempts over all pages, the limit per page (no "5 attempts of at most 2")', () => {
		const story = combinePageStories([page(2, 'success', { maxAttempts: 2 }), page(2, 'success', { maxAttempts: 2 }), page(1, 'success', { maxAttempts: 2 })], { firstPage: 1, pagesBefore: 0, failed: false });
		expect(story).toMatchObject({ attempts: 5, pages: 3, maxAttemptsPerPage: 2 });
		expect(story).not.toHaveProperty('maxAttempts');
		expect(storyLines(story)[0]).toMatch(/^Retry story: 3 pages fetched, 5 attempts in all, at most 2 per page, /);
	});

	it('a healthy run has no records and says so briefly', () => {
		const story = combinePageStories([page(1), page(1)], { firstPage: 1, pagesBefore: 0, failed: false });
		expect(story.history).toEqual([]);
		expect(story.summary).toBe('Fetched 2 pages in 2 attempts');
	});

	it('a failed last page: its records are kept, its stop and server wait are the item\'s, the pages before are counted', () => {
		const story = combinePageStories([page(1), page(2, 'attempts-exhausted', { retryAfterMs: 30000, retryAt: '2026-12-01T00:00:30.000Z' })], { firstPage: 4, pagesBefore: 3, failed: true });
		expect(story).toMatchObject({ stoppedBecause: 'attempts-exhausted', pages: 4, attempts: 3, retryAfterMs: 30000 });
		expect(story.history.map((r) => r.page)).toEqual([5, 5]);
		expect(story.summary).toBe('Page 5 failed, 4 pages fetched before it: Stopped after 2 attempts: last response 503');
	});

	it('a page that ended pagination with a listed status is a success of the item', () => {
		const story = combinePageStories([page(1), page(1, 'final-status')], { firstPage: 1, pagesBefore: 0, failed: false });
		expect(story.stoppedBecause).toBe('success');
		expect(story.pages).toBe(2);
	});

	it(`keeps at most ${PAGINATED_HISTORY_LIMIT} records, the latest`, () => {
		const story = combinePageStories(Array.from({ length: 40 }, () => page(2)), { firstPage: 1, pagesBefore: 0, failed: false });
		expect(story.history).toHaveLength(PAGINATED_HISTORY_LIMIT);
		expect(story.history[PAGINATED_HISTORY_LIMIT - 1].page).toBe(40);
		expect(story.attempts).toBe(80);
	});

	it('needs a page', () => {
		expect(() => combinePageStories([], { firstPage: 1, pagesBefore: 0, failed: false })).toThrow();
	});
});

describe('pageIdempotencyKey', () => {
	it('page 1 keeps the key, the others get their own, the same each time', () => {
		expect(pageIdempotencyKey('k-1', 1, 255)).toBe('k-1');
		expect(pageIdempotencyKey('k-1', 2, 255)).toBe('k-1-page-2');
		expect(pageIdempotencyKey('k-1', 37, 255)).toBe(pageIdempotencyKey('k-1', 37, 255));
	});
	it('stays within the header length', () => {
		const key = pageIdempotencyKey('x'.repeat(255), 1000, 255);
		expect(key).toHaveLength(255);
		expect(key.endsWith('-page-1000')).toBe(true);
	});
});

describe('offsetPageCount', () => {
	it('a resumed item sees $pageCount as if it had gone on, in expressions only', () => {
		const options = { continue: '={{ $pageCount < 10 }}', request: { qs: { page: '={{ $pageCount + 1 }}', offset: '={{ $pageCounter }}', plain: '$pageCount' } }, requestInterval: 0 };
		expect(offsetPageCount(options, 36)).toEqual({ continue: '={{ ($pageCount + 36) < 10 }}', request: { qs: { page: '={{ ($pageCount + 36) + 1 }}', offset: '={{ $pageCounter }}', plain: '$pageCount' } }, requestInterval: 0 });
		expect(offsetPageCount(options, 0)).toBe(options);
	});
});

describe('ownResumePoint', () => {
	const record = { pagesFetched: 2, resumeFrom: { node: 'n1', page: 3, url: 'https://api.test/list', parameters: { qs: { page: 3 } } }, items: [{ a: 1 }, 'not an item'] };
	it("finds the node's own record on the error output", () => {
		expect(ownResumePoint({ order: 1, error: { message: 'x', pagination: record } }, 'n1')).toEqual({ ...record, items: [{ a: 1 }] });
	});
	it("ignores another node's record, a malformed one, and items without one", () => {
		expect(ownResumePoint({ error: { pagination: record } }, 'n2')).toBeUndefined();
		expect(ownResumePoint({ error: { pagination: { ...record, resumeFrom: { ...record.resumeFrom, page: 0 } } } }, 'n1')).toBeUndefined();
		expect(ownResumePoint({ pagination: record }, 'n1')).toBeUndefined();
		expect(ownResumePoint({}, 'n1')).toBeUndefined();
	});
});
