/**
 * Fetches an item's pages with n8n's own pagination helper, so that `$response`, `$pageCount`,
 * `$request`, the completion rules, Max Pages and the "identical response" guard are HTTP Request's,
 * word for word (the interval between pages the node waits itself, cancellable). The helper sends
 * each page through the `request` of the object it is called on: here that is one page for the
 * retry engine (attempts, Retry-After, the API's traffic controller), so a 429 on page 37 waits and
 * fetches page 37 again; the pages fetched before are kept, and a page that finally fails leaves
 * the item with them and with where to resume.
 */
import type { IDataObject, IExecuteFunctions, PaginationOptions } from 'n8n-workflow';
import type { AuthPlan } from '../auth/auth-plan';
import { NodeOperationError } from 'n8n-workflow';
import type { AttemptFailure } from '../../shared/core/classify';
import { RETRY_LIMITS } from '../../shared/core/defaults';
import { offsetPageCount, pageIdempotencyKey, type PaginationRecord, type ResumePoint } from '../../shared/core/pagination';
import { SENSITIVE_HEADERS } from '../../shared/core/redact';
import type { RetryOutcome } from '../../shared/core/retry-loop';
import type { RetryStory } from '../../shared/core/retry-story';
import { parameterError } from '../../shared/n8n/parameters';
import { responseOf } from '../output/error-output';
import type { PageParameter, PaginationSettings } from '../config/pagination-settings';
import { headerValue, RequestRejection, type HttpResponse, type RequestSpec, type ResponseFormat } from '../types';
import { readResponseBody, type ResponseBody } from '../output/response-body';
import { stringifyForm } from '../transport/form-urlencoded';

/** One page as fetched: its request and its last response (a page that failed may have none). */
export interface FetchedPage {
	page: number;
	spec: RequestSpec;
	story: RetryStory;
	response?: HttpResponse;
	/** The response's body as n8n's pagination helper reads it for `$response` (in the node's Response Format), with the response. */
	body?: ResponseBody;
}

export type PaginationOutcome =
	| { ok: true; pages: FetchedPage[] }
	| { ok: false; pages: FetchedPage[]; failure: AttemptFailure; story: RetryStory; resumeFrom: ResumePoint };

interface PaginationRun {
	settings: PaginationSettings;
	/** The item's own request (page 1, or the base of a resumed item's pages). */
	spec: RequestSpec;
	format: ResponseFormat;
	/** The node that owns the resume point (see idempotency-keys.ts: its id, or its name). */
	owner: string;
	/** The item's key: each page gets its own (pageIdempotencyKey). */
	idempotency?: { header: string; key: string };
	/** A failed pass of this node this item resumes. */
	resume?: PaginationRecord;
	/** The item's credential: when there is one every page must stay on the first page's origin; `$request` shows its fields, hidden. */
	auth: AuthPlan;
	sendCredentialsCrossOrigin: boolean;
	fetchPage(spec: RequestSpec, page: number): Promise<RetryOutcome<HttpResponse>>;
	/** Waits Interval Between Requests; rejects when the execution is cancelled (the page then reports it). */
	sleep(ms: number): Promise<void>;
}

/**
 * The request options n8n's pagination helper works on and hands to `request` for each page: HTTP
 * Request's legacy shape (`uri`, `qs`, `headers`, `body` or `form`), declared here by the fields used.
 */
interface PageRequest {
	uri?: string;
	url?: string;
	method?: string;
	qs?: IDataObject;
	headers?: IDataObject;
	body?: IDataObject;
	json?: boolean;
	form?: IDataObject;
}

/** n8n's helper, called on an object of our own (see fetchPages): typed by what it is given. */
export type PaginatedHelper = (this: unknown, requestOptions: PageRequest, itemIndex: number, paginationOptions: PaginationOptions, credentialsType?: string, additionalCredentialOptions?: undefined, sanitizedRequest?: IDataObject) => Promise<unknown[]>;

/** How the pages' body parameters reach the body: n8n's helper merges them into `body` (JSON) or `form`. */
type BodyKind = 'none' | 'json' | 'form' | 'fixed';

function bodyKindOf(spec: RequestSpec): { kind: BodyKind; value?: IDataObject } {
	if (spec.body === undefined) return { kind: 'none' };
	const type = (headerValue(spec.headers, 'content-type') ?? '').toLowerCase();
	const text = Buffer.isBuffer(spec.body) ? spec.body.toString('utf8') : spec.body;
	if (type.includes('json')) {
		try {
			const value: unknown = JSON.parse(text);
			if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { kind: 'json', value: value as IDataObject };
		} catch {
			// a body that is not a JSON object is sent as it is
		}
	}
	if (type.includes('application/x-www-form-urlencoded')) return { kind: 'form', value: Object.fromEntries(new URLSearchParams(text)) };
	return { kind: 'fixed' };
}

/** The request n8n's helper starts from and shows as `$request`: HTTP Request's (legacy) request options. */
function baseRequestOptions(spec: RequestSpec, body: { kind: BodyKind; value?: IDataObject }): PageRequest {
	return {
		uri: spec.url,
		method: spec.method,
		qs: { ...spec.qs },
		headers: { ...spec.headers },
		...(body.kind === 'json' ? { body: body.value, json: true } : {}),
		...(body.kind === 'form' ? { form: body.value } : {}),
	};
}

const HIDDEN = '**hidden**';

const hiddenFields = (names: string[]): IDataObject => Object.fromEntries(names.map((name) => [name, HIDDEN]));

/**
 * What HTTP Request's request options hold of the credential, values hidden, as its `$request`
 * shows them: it sets Basic, Digest, Bearer, Header, Query and Custom Auth on the options itself
 * (a predefined or OAuth credential is applied later, by n8n, and not shown).
 */
function credentialShown(plan: AuthPlan): { headers?: IDataObject; qs?: IDataObject; body?: IDataObject; auth?: IDataObject } {
	switch (plan.kind) {
		case 'basic':
			return { auth: { user: plan.username, pass: HIDDEN } };
		case 'digest':
			return { auth: { user: plan.username, pass: HIDDEN, sendImmediately: false } };
		case 'query':
			return { qs: hiddenFields([plan.name]) };
		case 'custom':
			return { headers: hiddenFields(Object.keys(plan.headers)), qs: hiddenFields(Object.keys(plan.qs)), body: hiddenFields(Object.keys(plan.body)) };
		case 'authenticate':
			return { headers: hiddenFields(plan.shownHeaders ?? []) };
		default:
			return {};
	}
}

/** `$request` as HTTP Request shows it: the credential's fields there with their values hidden, as are headers that carry credentials. */
function sanitizedRequest(options: PageRequest, plan: AuthPlan): IDataObject {
	const shown = credentialShown(plan);
	const headers = Object.fromEntries(Object.entries({ ...(options.headers ?? {}), ...shown.headers }).map(([name, value]) => [name, SENSITIVE_HEADERS.includes(name.toLowerCase()) ? HIDDEN : value]));
	const withFields = (own: IDataObject | undefined, added: IDataObject | undefined) => (added && Object.keys(added).length > 0 ? { ...own, ...added } : own);
	const qs = withFields(options.qs, shown.qs);
	const body = withFields(options.body, shown.body);
	return { ...(options as IDataObject), headers, ...(qs ? { qs } : {}), ...(body ? { body } : {}), ...(shown.auth ? { auth: shown.auth } : {}) };
}

function asText(value: unknown): string {
	return typeof value === 'string' ? value : value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The page's request from what the helper resolved for it (its URL, query, headers and body). */
function pageSpecFrom(base: RequestSpec, options: PageRequest, body: BodyKind): RequestSpec {
	const headers = Object.fromEntries(Object.entries((options.headers ?? {}) as IDataObject).map(([name, value]) => [name, asText(value)]));
	const spec: RequestSpec = { ...base, url: String(options.uri ?? options.url ?? base.url), qs: { ...((options.qs ?? {}) as IDataObject) }, headers };
	if (body === 'form') spec.body = stringifyForm((options.form ?? {}) as IDataObject);
	else if (body === 'json' || (body === 'none' && options.body !== undefined)) {
		spec.body = JSON.stringify(options.body ?? {});
		if (headerValue(spec.headers, 'content-type') === undefined) spec.headers['content-type'] = 'application/json';
	}
	return spec;
}

/** A resumed item's first page is the page that failed, exactly: its URL and its parameters' values, over the item's request. */
function resumedPageRequest(base: PageRequest, resume: ResumePoint, body: BodyKind): PageRequest {
	const qs = { ...base.qs, ...(resume.parameters.qs ?? {}) } as IDataObject;
	// as the helper does: the URL's own query wins over the node's
	for (const key of new URL(resume.url).searchParams.keys()) delete qs[key];
	const request: PageRequest = { ...base, uri: resume.url, qs, headers: { ...base.headers, ...(resume.parameters.headers ?? {}) } as IDataObject };
	if (resume.parameters.body) {
		const merged = { ...(body === 'form' ? base.form : base.body), ...resume.parameters.body } as IDataObject;
		if (body === 'form') request.form = merged;
		else request.body = merged;
	}
	return request;
}

/** The values a page had for the parameters the pages update: a resumed item starts from them. */
function resumePointOf(owner: string, page: FetchedPage, parameters: PageParameter[], body: BodyKind): ResumePoint {
	const bodyValue = body === 'fixed' || page.spec.body === undefined ? {} : body === 'form' ? Object.fromEntries(new URLSearchParams(asText(page.spec.body))) : (JSON.parse(asText(page.spec.body)) as IDataObject);
	const sources: Record<PageParameter['type'], IDataObject> = { qs: page.spec.qs, headers: page.spec.headers, body: bodyValue };
	const values: ResumePoint['parameters'] = {};
	for (const { type, name } of parameters) {
		const target = (values[type] ??= {});
		if (sources[type][name] !== undefined) target[name] = sources[type][name];
	}
	return { node: owner, page: page.page, url: page.spec.url, parameters: values };
}

/** The page as `$response` shows it: the body as read (JSON parsed, text, or the file's bytes). */
function pageResponse(response: HttpResponse, read: ResponseBody): IDataObject {
	const body = read.format === 'file' ? response.body : read.value;
	return { body: body as IDataObject, headers: response.headers as IDataObject, statusCode: response.statusCode, statusMessage: response.statusMessage };
}

/** One answer as n8n's pagination helper starts from it: the request options, `$request` (credentials hidden) and `$response`. */
export async function answerView(ctx: IExecuteFunctions, spec: RequestSpec, auth: AuthPlan, response: HttpResponse, format: ResponseFormat): Promise<{ options: PageRequest; request: IDataObject; response: IDataObject }> {
	const options = baseRequestOptions(spec, bodyKindOf(spec));
	// the body as the helper reads a page's: the same `$response` as pagination's
	return { options, request: sanitizedRequest(options, auth), response: pageResponse(response, await readResponseBody(ctx, response, format, false, 'page')) };
}

/** The page failed without a response (network, timeout, cancel, a stop at the API's gate). */
class PageFailedError extends Error {}

function checkPageUrl(ctx: IExecuteFunctions, i: number, run: PaginationRun, firstOrigin: string, spec: RequestSpec, page: number): void {
	const label = run.settings.mode === 'responseContainsNextURL' ? 'Options > Pagination > Next URL' : 'URL';
	let url: URL;
	try {
		url = new URL(spec.url);
	} catch {
		parameterError(ctx, i, label, `gave page ${page} a value that is not a URL`, 'Make sure it evaluates to an absolute URL starting with http:// or https://.');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') parameterError(ctx, i, label, `gave page ${page} a URL with protocol "${url.protocol}": only http:// and https:// are sent`);
	if (run.auth.kind !== 'none' && !run.sendCredentialsCrossOrigin && url.origin !== firstOrigin) {
		parameterError(
			ctx,
			i,
			label,
			`gave page ${page} a URL on ${url.origin}, another origin than the first page's (${firstOrigin}): nothing was sent there, so that the credential does not leave ${firstOrigin}`,
			'Turn on Options > Send Credentials on Cross-Origin Redirect if the API really serves its pages from another origin.',
		);
	}
}

/** A Parameters entry that updates a body field needs a body whose fields the pages can update. */
function checkBodyParameters(ctx: IExecuteFunctions, i: number, run: PaginationRun, body: BodyKind): void {
	const bodyParameter = run.settings.parameters.findIndex((p) => p.type === 'body');
	if (bodyParameter >= 0 && body === 'fixed') {
		parameterError(ctx, i, `Options > Pagination > Parameters [${bodyParameter + 1}]`, 'updates a body field, which needs a JSON body (an object) or a Form URL Encoded one: set Body Content Type accordingly, or update a Query or Header parameter');
	}
}

/** The helper's options, its page count and Max Pages counted from the page a resumed item starts at. */
function helperOptionsOf(settings: PaginationSettings, firstPage: number): PaginationOptions {
	const offset = firstPage - 1;
	const options = offsetPageCount(settings.helper, offset);
	if (settings.maxPages !== undefined) options.maxRequests = Math.max(1, settings.maxPages - offset);
	return options;
}

/** One item's pagination as it goes: what the pages are built from, the pages fetched, the failure that ended them. */
interface ItemPages {
	ctx: IExecuteFunctions;
	i: number;
	run: PaginationRun;
	body: BodyKind;
	base: PageRequest;
	firstOrigin: string;
	firstPage: number;
	pages: FetchedPage[];
	failed?: { failure: AttemptFailure; story: RetryStory };
	/** This node is checking a page's request (its URL): what fails meanwhile is thrown on as it is. */
	checking?: boolean;
}

/** The next page's request: what the helper resolved (a resumed item's failed page first), its URL checked, its own key. */
function nextPageSpec(state: ItemPages, options: PageRequest, page: number): RequestSpec {
	const { run } = state;
	const spec = pageSpecFrom(run.spec, run.resume && state.pages.length === 0 ? resumedPageRequest(state.base, run.resume.resumeFrom, state.body) : options, state.body);
	checkPageUrl(state.ctx, state.i, run, state.firstOrigin, spec, page);
	if (!run.idempotency) return spec;
	return { ...spec, headers: { ...spec.headers, [run.idempotency.header]: pageIdempotencyKey(run.idempotency.key, page, RETRY_LIMITS.idempotencyKeyLength) } };
}

/** What the helper's `request` does for each page: fetch it through the retry engine, keep it, answer its `$response`. */
async function sendPage(state: ItemPages, options: PageRequest): Promise<IDataObject> {
	const { run, pages } = state;
	const page = state.firstPage + pages.length;
	// HTTP Request waits after deciding to go on, before the next page: the same instant
	if (pages.length > 0 && run.settings.intervalMs > 0) await run.sleep(run.settings.intervalMs).catch(() => undefined);
	// set until the page's request passed this node's checks: an error meanwhile is this node's refusal
	state.checking = true;
	const spec = nextPageSpec(state, options, page);
	state.checking = false;
	const outcome = await run.fetchPage(spec, page);
	const response = outcome.ok ? outcome.value : responseOf(outcome.failure);
	const body = response ? await readResponseBody(state.ctx, response, run.format, false, 'page') : undefined;
	pages.push({ page, spec, story: outcome.story, ...(response ? { response, body } : {}) });
	state.failed = outcome.ok ? undefined : { failure: outcome.failure, story: outcome.story };
	// a page the retry engine gave up on fails the item, also where HTTP Request would read it as the
	// last page (a 503 with an empty body is an "empty response"); only a status listed in Status
	// Code(s) when Complete ends pagination
	if (!outcome.ok && !(response && run.settings.completeStatuses.includes(response.statusCode))) throw new PageFailedError();
	return pageResponse(response!, body!);
}

/** n8n's helper's error as HTTP Request passes it on: a URL that is not one names the parameter that gave it. */
function helperError(ctx: IExecuteFunctions, run: PaginationRun, error: unknown): Error {
	if (!(error instanceof Error)) return new NodeOperationError(ctx.getNode(), String(error));
	if ((error as NodeOperationError).type !== 'invalid_url') return error;
	const parameter = run.settings.mode === 'responseContainsNextURL' ? 'Next URL' : 'URL';
	return new NodeOperationError(ctx.getNode(), error.message, { description: `Make sure the "${parameter}" parameter evaluates to a valid URL.` });
}

/** The item's outcome when the helper threw: the page that failed, with where to resume; a wrong setting is thrown on. */
function failedOutcome(state: ItemPages, error: unknown): PaginationOutcome {
	const { ctx, run, pages, failed } = state;
	const last = pages[pages.length - 1];
	// a page's URL this node refused, or what n8n's helper refused (an expression, a URL, the same page again and again)
	if (state.checking === true) throw error;
	if (!(error instanceof PageFailedError) && (last === undefined || error instanceof NodeOperationError || (error as Error).name === 'NodeOperationError')) {
		throw new RequestRejection(helperError(ctx, run, error));
	}
	const failure: AttemptFailure = failed?.failure ?? {
		kind: 'status',
		status: last.response?.statusCode,
		statusText: last.response?.statusMessage,
		message: `${last.response?.statusCode ?? ''} ${last.response?.statusMessage ?? ''}`.trim(),
		reachedServer: 'yes',
		transient: false,
	};
	const story = failed?.story ?? { ...last.story, stoppedBecause: 'final-status', summary: `Response ${failure.message} is not a page: pagination goes on only after a 2xx response` };
	return { ok: false, pages: pages.slice(0, -1), failure, story, resumeFrom: resumePointOf(run.owner, last, run.settings.parameters, state.body) };
}

/** Fetches the item's pages; never throws for a page that failed, only for a setting that is wrong. */
export async function fetchPages(ctx: IExecuteFunctions, i: number, run: PaginationRun): Promise<PaginationOutcome> {
	const body = bodyKindOf(run.spec);
	checkBodyParameters(ctx, i, run, body.kind);
	const firstPage = run.resume ? run.resume.resumeFrom.page : 1;
	const helperOptions = helperOptionsOf(run.settings, firstPage);
	const base = baseRequestOptions(run.spec, body);
	const state: ItemPages = { ctx, i, run, body: body.kind, base, firstOrigin: new URL(run.spec.url).origin, firstPage, pages: [] };
	// the helper calls `this.helpers.request` for each page (no credential type: ours are applied per attempt)
	const host = { helpers: { request: (options: PageRequest) => sendPage(state, options) } };
	try {
		await (ctx.helpers.requestWithAuthenticationPaginated as unknown as PaginatedHelper).call(host, base, i, helperOptions, undefined, undefined, sanitizedRequest(base, run.auth));
		return { ok: true, pages: state.pages };
	} catch (error) {
		return failedOutcome(state, error);
	}
}
