/**
 * What pagination adds to the retry engine, pure: the story of an item over its pages, the idempotency
 * key of each page, the point a failed item resumes from, and the expressions of a resumed item
 * (its `$pageCount` continues where the failed pass stopped).
 */
import { formatDuration, type AttemptRecord, type RetryStory } from './retry-story';

type Json = Record<string, unknown>;

/** A page's attempts in the item's story carry their page number (1-based, counted over resumptions). */
type PageAttemptRecord = AttemptRecord & { page: number };

interface PaginatedStory extends RetryStory {
	/** Pages fetched successfully (the pages of the failed pass it resumed included). */
	pages: number;
	maxAttemptsPerPage: number;
	history: PageAttemptRecord[];
}

/**
 * At most this many attempt records in a paginated item's story: the story is written on every
 * item the pages produce, so a healthy 1,000-page run must not carry 1,000 records on each.
 */
export const PAGINATED_HISTORY_LIMIT = 50;

/**
 * One story for an item's pages. Only pages that needed more than one attempt keep their records
 * (the latest PAGINATED_HISTORY_LIMIT of them); the counts and times cover every page. The last
 * page's story hands on the server's requested wait. `failed`: the last page failed the item; otherwise
 * it ended pagination (a status in Status Code(s) when Complete is a page too, as in HTTP Request).
 */
export function combinePageStories(stories: RetryStory[], { firstPage, pagesBefore, failed }: { firstPage: number; pagesBefore: number; failed: boolean }): PaginatedStory {
	if (stories.length === 0) throw new Error('combinePageStories needs at least one page');
	const last = stories[stories.length - 1];
	const pages = pagesBefore + stories.length - (failed ? 1 : 0);
	const history = stories
		.flatMap((story, index) => (story.history.length > 1 || (failed && index === stories.length - 1) ? story.history.map((record) => ({ ...record, page: firstPage + index })) : []))
		.slice(-PAGINATED_HISTORY_LIMIT);
	const attempts = stories.reduce((sum, story) => sum + story.attempts, 0);
	const totalDelayMs = stories.reduce((sum, story) => sum + story.totalDelayMs, 0);
	const elapsedMs = stories.reduce((sum, story) => sum + story.elapsedMs, 0);
	const lastPage = firstPage + stories.length - 1;
	const retried = attempts > stories.length;
	const summary = failed
		? `Page ${lastPage} failed, ${pages} page${pages === 1 ? '' : 's'} fetched before it: ${last.summary}`
		: `Fetched ${pages} page${pages === 1 ? '' : 's'} in ${attempts} attempt${attempts === 1 ? '' : 's'}${retried ? `, after waiting ${formatDuration(totalDelayMs)} for retries` : ''}`;
	// the limit is each page's: an item's attempts over its pages are not counted against it
	const { maxAttempts, ...rest } = last;
	return { ...rest, ...(failed ? {} : { stoppedBecause: 'success' as const }), attempts, maxAttemptsPerPage: maxAttempts ?? attempts, totalDelayMs, elapsedMs, summary, pages, history };
}

/**
 * The key of one page. Each page is its own request, so it gets its own key: page 1 the item's key,
 * page n `<key>-page-<n>`. A page resent (a retry, a resumed item) is the same request and goes out
 * under the same key again. Keys are cut to leave room for the suffix.
 */
export function pageIdempotencyKey(key: string, page: number, maxLength: number): string {
	if (page <= 1) return key;
	const suffix = `-page-${page}`;
	return `${key.slice(0, Math.max(1, maxLength - suffix.length))}${suffix}`;
}

/** Where a failed item stopped: the page that failed, and the request that fetches it again. */
export interface ResumePoint {
	/** The node that paginated (its id, or name without ids): only it resumes the item. */
	node: string;
	/** 1-based number of the page that failed. */
	page: number;
	/** The page's URL (Response Contains Next URL), with the query the URL itself carries. */
	url: string;
	/** The values the page had for the parameters the pages update (Update a Parameter in Each Request). */
	parameters: { qs?: Json; headers?: Json; body?: Json };
}

function isObject(value: unknown): value is Json {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isResumePoint(value: unknown): value is ResumePoint {
	return isObject(value) && typeof value.node === 'string' && typeof value.page === 'number' && Number.isInteger(value.page) && value.page >= 1 && typeof value.url === 'string' && isObject(value.parameters);
}

/** What a failed paginated item carries on the error output (`error.pagination`). */
export interface PaginationRecord {
	pagesFetched: number;
	resumeFrom: ResumePoint;
	/** The items the fetched pages produced (json; files are not carried). */
	items: Json[];
}

/**
 * The resume point of node `owner` on an item back from its error output (a Backoff Delay loop, a
 * replay), and the items it had fetched; undefined for any other item.
 */
export function ownResumePoint(json: Json, owner: string): PaginationRecord | undefined {
	const error = isObject(json.error) ? json.error : undefined;
	const record = error && isObject(error.pagination) ? error.pagination : undefined;
	if (!record || !isResumePoint(record.resumeFrom) || record.resumeFrom.node !== owner) return undefined;
	const items = Array.isArray(record.items) ? record.items.filter(isObject) : [];
	const pagesFetched = typeof record.pagesFetched === 'number' && Number.isInteger(record.pagesFetched) ? record.pagesFetched : record.resumeFrom.page - 1;
	return { pagesFetched, resumeFrom: record.resumeFrom, items };
}

/**
 * A resumed item's expressions see `$pageCount` as if the failed pass had gone on: n8n's helper
 * counts from 0 again, so each `$pageCount` becomes `($pageCount + offset)`.
 */
export function offsetPageCount<T>(value: T, offset: number): T {
	if (offset === 0) return value;
	if (typeof value === 'string') return (value.startsWith('=') ? value.replace(/\$pageCount\b/g, `($pageCount + ${offset})`) : value) as T;
	if (Array.isArray(value)) return value.map((entry: unknown) => offsetPageCount(entry, offset)) as T;
	if (isObject(value)) {
		const copy = Object.create(null) as Json;
		for (const [key, entry] of Object.entries(value)) copy[key] = offsetPageCount(entry, offset);
		return copy as T;
	}
	return value;
}
