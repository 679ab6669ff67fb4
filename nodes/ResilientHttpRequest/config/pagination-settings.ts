/**
 * Options > Pagination, read as HTTP Request (v4) reads it: the expressions stay raw, because n8n
 * resolves them for each page with `$response`, `$pageCount` and `$request`, and they become the
 * same pagination description HTTP Request hands to n8n's pagination helper. Bad settings fail
 * before any request, naming the parameter and the item.
 */
import type { IDataObject, IExecuteFunctions, PaginationOptions } from 'n8n-workflow';
import { httpRequestParameterError, parameterError } from '../../shared/n8n/parameters';
import { PAGINATION_LIMITS } from '../descriptions/pagination.description';

type PageParameterType = 'qs' | 'headers' | 'body';

export interface PageParameter {
	type: PageParameterType;
	name: string;
}

export interface PaginationSettings {
	mode: 'updateAParameterInEachRequest' | 'responseContainsNextURL';
	/** What n8n's helper evaluates: `continue`, `request`, `maxRequests`, `requestInterval`, `binaryResult`. */
	helper: PaginationOptions;
	/** Max Pages when Limit Pages Fetched is on. */
	maxPages?: number;
	/** Interval Between Requests (Ms): the wait before each page after the first. */
	intervalMs: number;
	/** The parameters the pages update (Update a Parameter in Each Request): what a resumed item restarts from. */
	parameters: PageParameter[];
	/** Status Code(s) when Complete: a failed page with one of them is the last page, any other fails the item. */
	completeStatuses: number[];
}

const PAGE_PARAMETER_TYPES: PageParameterType[] = ['qs', 'headers', 'body'];
const LABEL = 'Options > Pagination';

/** `={{ expr }}` → `expr`, as HTTP Request cuts a Complete Expression. */
function expressionBody(raw: string): string {
	return raw.trim().replace(/^=\s*\{\{/, '').replace(/\}\}\s*$/, '').trim();
}

/**
 * When pagination stops, as HTTP Request (v4) writes it. With Never Error off, "Other" also goes on
 * (so that n8n's helper reports it) when a page's status is not 2xx.
 */
function continueExpression(ctx: IExecuteFunctions, i: number, pagination: IDataObject, neverError: boolean): { expression: string; completeStatuses: number[] } {
	const when = pagination.paginationCompleteWhen ?? 'responseIsEmpty';
	if (when === 'responseIsEmpty') return { expression: '={{ Array.isArray($response.body) ? $response.body.length : !!$response.body }}', completeStatuses: [] };
	if (when === 'receiveSpecificStatusCodes') {
		const raw = String(pagination.statusCodesWhenComplete ?? '');
		const codes = raw.split(',').map((part) => part.trim()).filter((part) => part !== '');
		const bad = codes.find((code) => !/^[1-5]\d\d$/.test(code));
		if (codes.length === 0) parameterError(ctx, i, `${LABEL} > Status Code(s) when Complete`, 'is empty: list the status codes that end pagination, separated by commas (e.g. 404, 204)');
		if (bad !== undefined) parameterError(ctx, i, `${LABEL} > Status Code(s) when Complete`, `has ${JSON.stringify(bad)}, which is not an HTTP status code (100 to 599)`);
		const completeStatuses = codes.map(Number);
		return { expression: `={{ !${JSON.stringify(completeStatuses)}.includes($response.statusCode) }}`, completeStatuses };
	}
	if (when === 'other') {
		const raw = pagination.completeExpression;
		if (typeof raw !== 'string' || raw.trim() === '' || !raw.trim().startsWith('=')) httpRequestParameterError(ctx, i, 'Invalid or empty Complete Expression');
		const body = expressionBody(raw);
		return { expression: neverError ? `={{ !(${body}) }}` : `={{ !(${body}) || ($response.statusCode < 200 || $response.statusCode >= 300) }}`, completeStatuses: [] };
	}
	parameterError(ctx, i, `${LABEL} > Pagination Complete When`, `must be Response Is Empty, Receive Specific Status Code(s) or Other, got ${JSON.stringify(when)}`);
}

function pageParameters(ctx: IExecuteFunctions, i: number, pagination: IDataObject, request: IDataObject): PageParameter[] {
	const entries = (((pagination.parameters as IDataObject | undefined)?.parameters ?? []) as IDataObject[]).filter((p) => p && typeof p === 'object');
	if (entries.length === 0 || entries.every((p) => (p.name ?? '') === '' && (p.value ?? '') === '')) {
		// HTTP Request's words, its trailing space included
		httpRequestParameterError(ctx, i, "At least one entry with 'Name' and 'Value' filled must be included in 'Parameters' to use 'Update a Parameter in Each Request' mode ");
	}
	const parameters: PageParameter[] = [];
	entries.forEach((entry, index) => {
		const type = (entry.type ?? 'qs') as PageParameterType;
		const name = String(entry.name ?? '').trim();
		if (name === '') httpRequestParameterError(ctx, i, `Parameter name must be set for parameter [${index + 1}] in pagination settings`);
		if (!PAGE_PARAMETER_TYPES.includes(type)) httpRequestParameterError(ctx, i, `Parameter type must be one of: body, headers, qs for parameter [${index + 1}] in pagination settings`);
		if (entry.value === undefined || entry.value === '') httpRequestParameterError(ctx, i, `Some value must be provided for parameter [${index + 1}] in pagination settings, omitting it will result in an infinite loop`);
		const target = (request[type] ??= Object.create(null) as IDataObject) as IDataObject;
		// the name is a key the user typed: never one that reaches the object's prototype
		Object.defineProperty(target, name, { value: entry.value, enumerable: true, writable: true, configurable: true });
		parameters.push({ type, name });
	});
	return parameters;
}

/** The item's pagination, or undefined when Pagination Mode is Off (or the option was not added). */
export function readPaginationSettings(ctx: IExecuteFunctions, i: number, neverError: boolean, binaryResult: boolean): PaginationSettings | undefined {
	const pagination = ctx.getNodeParameter('options.pagination.pagination', i, null, { rawExpressions: true }) as IDataObject | null;
	if (!pagination || typeof pagination !== 'object') return undefined;
	// HTTP Request's default once the option is added is "Update a Parameter in Each Request"
	const mode = (pagination.paginationMode ?? 'updateAParameterInEachRequest') as string;
	if (mode === 'off') return undefined;
	if (mode !== 'updateAParameterInEachRequest' && mode !== 'responseContainsNextURL') {
		parameterError(ctx, i, `${LABEL} > Pagination Mode`, `must be Off, Update a Parameter in Each Request or Response Contains Next URL, got ${JSON.stringify(mode)}`);
	}
	// HTTP Request checks the completion rule before the parameters: the same first error
	const { expression, completeStatuses } = continueExpression(ctx, i, pagination, neverError);
	const request: IDataObject = Object.create(null) as IDataObject;
	let parameters: PageParameter[] = [];
	if (mode === 'updateAParameterInEachRequest') parameters = pageParameters(ctx, i, pagination, request);
	else {
		const nextUrl = pagination.nextURL;
		if (typeof nextUrl !== 'string' || nextUrl.trim() === '') parameterError(ctx, i, `${LABEL} > Next URL`, 'is empty: give an expression for the next page\'s URL, e.g. {{ $response.body.next }}');
		request.url = nextUrl;
	}
	let maxPages: number | undefined;
	if (pagination.limitPagesFetched === true) {
		const raw = pagination.maxRequests ?? 100;
		const value = typeof raw === 'string' && raw.trim() !== '' && !raw.startsWith('=') ? Number(raw) : raw;
		if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > PAGINATION_LIMITS.maxPages) {
			parameterError(ctx, i, `${LABEL} > Max Pages`, `must be a whole number from 1 to ${PAGINATION_LIMITS.maxPages}, got ${JSON.stringify(raw)}`);
		}
		maxPages = value;
	}
	// an expression here is resolved as any parameter (HTTP Request resolves it per page, without $response in practice)
	const rawInterval = pagination.requestInterval ?? 0;
	const resolved = typeof rawInterval === 'string' && rawInterval.startsWith('=') ? ctx.getNodeParameter('options.pagination.pagination.requestInterval', i, 0) : rawInterval;
	const interval = typeof resolved === 'string' && resolved.trim() !== '' ? Number(resolved) : resolved;
	if (typeof interval !== 'number' || !Number.isFinite(interval) || interval < 0 || interval > PAGINATION_LIMITS.intervalMs) {
		parameterError(ctx, i, `${LABEL} > Interval Between Requests (Ms)`, `must be a number of milliseconds from 0 to ${PAGINATION_LIMITS.intervalMs}, got ${JSON.stringify(resolved)}`);
	}
	const helper: PaginationOptions = {
		continue: expression,
		request,
		// the node waits between pages itself (paginate.ts), on its clock and cancellable
		requestInterval: 0,
		...(maxPages !== undefined ? { maxRequests: maxPages } : {}),
		...(binaryResult ? { binaryResult: true } : {}),
	};
	return { mode, helper, ...(maxPages !== undefined ? { maxPages } : {}), intervalMs: interval, parameters, completeStatuses };
}
