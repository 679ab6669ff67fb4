/**
 * The items of a paginated item: every page's items (a resumed item first gets back the items its
 * failed pass had fetched), with one story over the pages; or, when a page finally failed, the
 * error item with the pages fetched so far and the point a loop or a replay resumes from.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { combinePageStories, type PaginationRecord } from '../../shared/core/pagination';
import type { RetryStory } from '../../shared/core/retry-story';
import type { Runtime } from '../../shared/core/runtime';
import { failedResult, withStory } from '../output/item-results';
import type { FetchedPage, PaginationOutcome } from './paginate';
import { requestContext } from '../output/request-context';
import { responseToItems } from '../output/response';
import type { ItemConfig } from '../config/item-config';
import type { OutputSettings } from '../config/output-settings';
import type { ItemScope } from '../config/item-scope';
import { toolSuccessItems } from '../output/tool-answer';
import type { ToolAnswer } from '../types';


/** A page's items; a page that is an empty array adds none, as in HTTP Request (the last page often is one). */
async function pageItems(ctx: IExecuteFunctions, i: number, page: FetchedPage, settings: OutputSettings, tool: ToolAnswer | undefined): Promise<INodeExecutionData[]> {
	if (!page.response || !page.body) return [];
	const { body } = page;
	if (body.format === 'json' && Array.isArray(body.value) && body.value.length === 0 && !settings.response.fullResponse) return [];
	if (tool) return await toolSuccessItems(ctx, i, tool, page.response, settings.response, page.spec.url);
	return await responseToItems(ctx, i, page.response, settings.response, page.spec.url, 'page');
}

async function itemsOf(ctx: IExecuteFunctions, i: number, pages: FetchedPage[], carried: INodeExecutionData[], settings: OutputSettings, tool: ToolAnswer | undefined): Promise<INodeExecutionData[]> {
	const items = [...carried];
	for (const page of pages) items.push(...(await pageItems(ctx, i, page, settings, tool)));
	return items;
}

/**
 * `config`: the item's (the tool answers each page as the tool does, with no story; the story and
 * the error output carry the item's own key, not the key of its last page). `resume`: where the
 * item's failed pass stopped, when it is back from one.
 */
export async function paginatedResult(ctx: IExecuteFunctions, scope: ItemScope, config: ItemConfig, run: PaginationOutcome, runtime: Runtime, resume: PaginationRecord | undefined): Promise<INodeExecutionData[]> {
	const { index: i } = scope;
	const { output: settings, tool } = config;
	const idempotencyKey = config.idempotency.key;
	const stories: RetryStory[] = [...run.pages.map((page) => page.story), ...(run.ok ? [] : [run.story])];
	const firstPage = resume ? resume.resumeFrom.page : 1;
	const combined = combinePageStories(stories, { firstPage, pagesBefore: resume?.pagesFetched ?? 0, failed: !run.ok });
	const raw: RetryStory = idempotencyKey !== undefined ? { ...combined, idempotencyKey } : combined;
	// as for one request: a story that quotes a failed attempt is redacted; the pages are the user's data
	const story = !run.ok || raw.history.length > 0 ? (await scope.redactor()).value(raw) : raw;
	const carried = (resume?.items ?? []).map((json) => ({ json: json as IDataObject }));
	const items = await itemsOf(ctx, i, run.pages, carried, settings, tool);

	if (run.ok) {
		// pages that were all empty arrays leave no item, as in HTTP Request: the nodes after it do not run
		return withStory(items, tool ? '' : settings.storyField, story, i);
	}
	const record: PaginationRecord = {
		pagesFetched: (resume?.pagesFetched ?? 0) + run.pages.length,
		resumeFrom: run.resumeFrom,
		// json only: binary pages cannot ride on the error item's json
		items: items.filter((item) => !item.binary).map((item) => item.json),
	};
	return await failedResult(ctx, i, {
		failure: run.failure,
		story,
		request: { method: config.request.method, url: run.resumeFrom.url },
		settings,
		runtime,
		redactor: scope.redactor,
		extras: { items, details: { pagination: record as unknown as IDataObject } },
		context: requestContext(config.request, config.quoted, true),
		page: true,
		...(tool ? { tool } : {}),
	});
}
