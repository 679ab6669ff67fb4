/**
 * HTTP Request's "You can view the raw requests this node makes in your browser's developer
 * console": in a manual execution each attempt is sent to the editor's console (n8n's
 * sendMessageToUI, which does nothing in other modes), as it went out and how it ended, with the
 * item's secrets redacted. The credential itself is applied after this point (auth-transport.ts),
 * so it is never in the message; the item's redactor hides the headers and values that carry one.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { AttemptResult } from '../../shared/core/retry-loop';
import type { RequestSpec } from '../types';
import type { ItemScope } from '../config/item-scope';

/** The start of a text body shown in the console; binary bodies are shown by their size. */
const BODY_CHARS = 2000;

function bodyForConsole(body: RequestSpec['body']): string | undefined {
	if (body === undefined) return undefined;
	if (Buffer.isBuffer(body)) return `[${body.length} bytes]`;
	return body.length > BODY_CHARS ? `${body.slice(0, BODY_CHARS)}…` : body;
}

type ConsoleReporter = (spec: RequestSpec, attempt: number, result: AttemptResult<unknown>) => Promise<void>;

/** The reporter of an item in a manual execution, or undefined in any other mode (nothing to show). */
export function consoleReporter(ctx: IExecuteFunctions, scope: ItemScope): ConsoleReporter | undefined {
	if (ctx.getMode() !== 'manual') return undefined;
	const i = scope.index;
	return async (spec, attempt, result) => {
		const body = bodyForConsole(spec.body);
		const outcome: IDataObject = result.ok
			? { status: result.status ?? null }
			: { ...(result.failure.status !== undefined ? { status: result.failure.status } : {}), ...(result.failure.code ? { error: result.failure.code } : {}), message: result.failure.message };
		const message: IDataObject = { item: i, attempt, method: spec.method, uri: spec.url, qs: spec.qs, headers: spec.headers, ...(body !== undefined ? { body } : {}), ...outcome };
		ctx.sendMessageToUI((await scope.redactor()).value(message));
	};
}
