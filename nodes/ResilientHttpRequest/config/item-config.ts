/**
 * Everything one item needs, read once and in one place: each parameter collection is read once,
 * each reader gets what the others already read, and the result is frozen. The order is the order
 * of the checks: an item with two bad parameters reports the first of them, before any request.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { isLoopRetry } from '../../shared/core/item-records';
import { readAuthSelection } from '../auth/auth-plan';
import type { TransportSettings } from '../transport/send-attempt';
import { readToolAnswer } from './tool-settings';
import { readIdempotencySettings, type IdempotencyKeys } from './idempotency-keys';
import type { ItemScope } from './item-scope';
import { quotedOptions, type QuotedOptions } from './quoted-options';
import { readOutputSettings, type OutputSettings } from './output-settings';
import { readPaginationSettings, type PaginationSettings } from './pagination-settings';
import { readRequestSpec } from './request-spec';
import { headerValue, type RequestSpec, type ToolAnswer } from '../types';
import { readRetrySettings, type RetrySettings } from './retry-settings';
import type { ScheduleSettings } from './schedule-settings';
import { readTrafficControl, type TrafficControl } from './traffic-settings';
import { readTransportSettings } from './transport-settings';

/** The key an item's request goes out with, in which header, and the node that generated it (if one did). */
interface ItemIdempotency {
	header: string;
	key?: string;
	owner?: string;
}

export interface ItemConfig {
	/** The request as every attempt sends it, its idempotency header included. */
	readonly request: Readonly<RequestSpec>;
	readonly transport: TransportSettings;
	readonly retry: RetrySettings;
	readonly idempotency: ItemIdempotency;
	readonly traffic: TrafficControl;
	/** Undefined when Pagination Mode is Off. */
	readonly pagination?: PaginationSettings;
	readonly output: OutputSettings;
	/** What a thrown error quotes of the Options beside the request (HTTP Request's `context.request`). */
	readonly quoted: QuotedOptions;
	/** Undefined unless the node runs as an AI agent's tool. */
	readonly tool?: ToolAnswer;
	/** The item comes back from a loop (Backoff Delay): its first attempt here is a retry. */
	readonly loopRetry: boolean;
}

/** What the run decided before its first item: the node-wide schedule and every item's derived key. */
export interface RunSettings {
	readonly schedule: ScheduleSettings;
	readonly keys: IdempotencyKeys;
	/** The node runs as an AI agent's tool (its `<name>Tool` variant). */
	readonly asTool: boolean;
	/** The run's one copy of the node (ctx.getNode() copies it whole on every call): read, never changed. */
	readonly node: Readonly<INode>;
}

function collection(ctx: IExecuteFunctions, name: string, i: number): IDataObject {
	return ctx.getNodeParameter(name, i, {}) as IDataObject;
}

export async function readItemConfig(ctx: IExecuteFunctions, scope: ItemScope, run: RunSettings): Promise<ItemConfig> {
	const i = scope.index;
	const retryOptions = collection(ctx, 'retryOptions', i);
	const options = collection(ctx, 'options', i);
	const output = readOutputSettings(options, retryOptions);
	const retry = readRetrySettings(ctx, i, retryOptions, output.response.format);
	const idempotencySettings = readIdempotencySettings(ctx, i, retryOptions);
	const spec = await readRequestSpec(ctx, i, options);
	const auth = readAuthSelection(ctx, i);
	const attemptTimeoutMs = retry.policy.attemptTimeoutMs;
	const transport = await readTransportSettings(ctx, i, { spec, options, auth, node: run.node, attemptTimeoutMs });
	const tool = readToolAnswer(ctx, i, run.asTool);
	const traffic = readTrafficControl(ctx, i, { url: spec.url, auth, node: run.node, schedule: run.schedule, attemptTimeoutMs });
	// a generated key belongs to this node: an item that comes back after a failed pass here (a
	// Backoff Delay loop) is the same request and goes out under the same key, never under a second one
	const choice = run.keys.pick(i, idempotencySettings, scope.json);
	const header = idempotencySettings.header;
	const request = choice.key === undefined ? spec : { ...spec, headers: { ...spec.headers, [header]: choice.key } };
	// a key the user set as a plain header protects the request just as well
	const key = choice.key ?? headerValue(request.headers, header);
	const pagination = readPaginationSettings(ctx, i, output.neverError, output.response.format === 'file');
	return Object.freeze({
		request: Object.freeze(request),
		transport,
		retry,
		idempotency: { header, ...(key !== undefined ? { key } : {}), ...(choice.owner !== undefined ? { owner: choice.owner } : {}) },
		traffic,
		...(pagination ? { pagination } : {}),
		output,
		quoted: quotedOptions(options, output, transport.sendCredentialsCrossOrigin),
		...(tool ? { tool } : {}),
		loopRetry: isLoopRetry(scope.json),
	});
}
