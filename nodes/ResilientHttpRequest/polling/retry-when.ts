/**
 * Retry When: an expression over `$response` (body, headers, statusCode) and the item, evaluated on
 * each 2xx answer by n8n's own pagination helper, so that `$response`, `$request`, `$json` and every
 * expression function are exactly what HTTP Request's pagination expressions see. The helper resolves
 * its `continue` expression after each page it got: handed one answer (ours) and the condition as
 * `continue`, it asks for a second page exactly when the condition holds. That second request is
 * never sent: the host it is asked of answers "the condition holds" instead.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { RETRY_PARAMETERS } from '../../shared/core/defaults';
import { parameterError } from '../../shared/n8n/parameters';
import type { AuthPlan } from '../auth/auth-plan';
import type { AttemptFailure } from '../../shared/core/classify';
import { serverRequestedDelay } from '../../shared/core/retry-after';
import type { Runtime } from '../../shared/core/runtime';
import type { HttpResponse, RequestSpec, ResponseFormat } from '../types';
import { answerView, type PaginatedHelper } from '../pagination/paginate';

/** The helper asked for a second page: the condition held. */
class ConditionHeld extends Error {}

/** Whether the condition held, or why it could not be evaluated (a wrong expression: the item fails with it). */
type Verdict = { holds: boolean } | { wrong: string };

/** The error of a Retry When that could not be evaluated, thrown once the item's loop is over. */
export function retryWhenError(ctx: IExecuteFunctions, i: number, problem: string): never {
	parameterError(ctx, i, RETRY_PARAMETERS.retryWhen.displayName, `could not be evaluated on the answer: ${problem}`, 'It is evaluated on each 2xx answer with $response (body, headers, statusCode) and the item ($json).');
}

interface RetryWhenContext {
	/** The raw expression (`={{ ... }}`). */
	expression: string;
	auth: AuthPlan;
	format: ResponseFormat;
}

/** Whether the answer meets Retry When (the job is not done yet). */
export async function meetsRetryWhen(ctx: IExecuteFunctions, i: number, when: RetryWhenContext, spec: RequestSpec, response: HttpResponse): Promise<Verdict> {
	const view = await answerView(ctx, spec, when.auth, response, when.format);
	let asked = 0;
	const host = {
		helpers: {
			request: async (): Promise<IDataObject> => {
				if (asked++ > 0) throw new ConditionHeld();
				return view.response;
			},
		},
	};
	try {
		await (ctx.helpers.requestWithAuthenticationPaginated as unknown as PaginatedHelper).call(host, view.options, i, { continue: when.expression, request: {}, requestInterval: 0 }, undefined, undefined, view.request);
		return { holds: false };
	} catch (error) {
		if (error instanceof ConditionHeld) return { holds: true };
		return { wrong: error instanceof Error ? error.message : String(error) };
	}
}

/** A 2xx answer that says "not yet", with the pace the server gave (Retry-After, retry-after-ms). */
export function notYetFailure(response: HttpResponse, runtime: Runtime): AttemptFailure {
	const { statusCode: status, statusMessage: statusText, headers } = response;
	const serverDelay = serverRequestedDelay(headers, runtime.now(), { readRateLimitHeaders: false, status });
	return { kind: 'status', status, statusText, message: `${status}${statusText ? ` ${statusText}` : ''}`, reachedServer: 'yes', transient: true, notYet: true, ...(serverDelay ? { serverDelay } : {}), headers, body: response.body };
}
