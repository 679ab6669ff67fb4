/**
 * Which idempotency key each item is sent with, and which node owns it.
 *
 * - From Expression: the user's key, as given.
 * - Generate: the key of this node's failed pass when the item comes back to it (a loop, a replay
 *   of its error output); otherwise a random UUID, or one derived from the workflow, this node and
 *   the item (its data or the fields listed), so that a re-run or n8n's Retry execution of the
 *   same input sends the same key again.
 *
 * Derived keys are planned for all items of the run before any request: two items that would get
 * the same key are two requests the API would perform once, so the later item (in input order,
 * whatever order the requests go out in) fails with an error naming both, and nothing is sent for it.
 */
import { randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { RETRY_DEFAULTS } from '../../shared/core/defaults';
import { derivedIdempotencyKey, fieldValues, GENERATED_KEY_BASES, headerNameProblem, idempotencyKeyProblem, parseFieldList, type GeneratedKeyBasis, type IdempotencyMode, type KeyScope } from '../../shared/core/idempotency';
import { ownFailedPassKey, withoutPackageRecords } from '../../shared/core/item-records';
import { parameterError } from '../../shared/n8n/parameters';

/** Idempotency Key (Off, From Expression, Generate), the header it goes in, and the key given by expression. */
interface IdempotencySettings {
	mode: IdempotencyMode;
	header: string;
	/** Only for mode 'expression'. */
	key?: string;
}

export function readIdempotencySettings(ctx: IExecuteFunctions, i: number, retryOptions: IDataObject): IdempotencySettings {
	const mode = ctx.getNodeParameter('idempotencyKeyMode', i, 'off') as IdempotencyMode;
	const header = String(retryOptions.idempotencyHeaderName ?? RETRY_DEFAULTS.idempotencyHeader).trim();
	const headerProblem = headerNameProblem(header);
	if (mode !== 'off' && headerProblem) parameterError(ctx, i, 'Header Name for Idempotency Key', `is invalid: ${headerProblem}`);
	if (mode !== 'expression') return { mode, header };
	const raw = ctx.getNodeParameter('idempotencyKey', i, '') as unknown;
	const problem = idempotencyKeyProblem(raw);
	if (problem) parameterError(ctx, i, 'Key', `(the idempotency key) ${problem}`);
	return { mode, header, key: String(raw) };
}

/** How Generate makes its keys (read for every item before any request). */
type GeneratedKeySettings = { basis: 'random' } | { basis: 'itemData' } | { basis: 'fields'; fields: string[] };

function readGeneratedKeySettings(ctx: IExecuteFunctions, i: number): GeneratedKeySettings {
	const basis = ctx.getNodeParameter('generatedKeyBasis', i, 'random') as GeneratedKeyBasis;
	if (!GENERATED_KEY_BASES.includes(basis)) parameterError(ctx, i, 'Key Based On', `must be one of ${GENERATED_KEY_BASES.join(', ')}, got ${JSON.stringify(basis)}`);
	if (basis !== 'fields') return { basis };
	const parsed = parseFieldList(ctx.getNodeParameter('keyFields', i, '') as unknown);
	if ('problem' in parsed) parameterError(ctx, i, 'Fields to Hash', parsed.problem);
	return { basis, fields: parsed.fields };
}

interface KeyChoice {
	key?: string;
	/** Set for generated keys: the node that sends the item again under the same key. */
	owner?: string;
}

/** What names this node as the owner of the keys it generates: its id (stable across renames), or its name in a workflow without ids. */
function keyOwnerOf(ctx: IExecuteFunctions): string {
	const node = ctx.getNode();
	return node.id || node.name;
}

/** The derived key of one item, or the parameter error that stops it (thrown when it is its turn). */
function deriveKey(ctx: IExecuteFunctions, i: number, scope: KeyScope, generated: Exclude<GeneratedKeySettings, { basis: 'random' }>, json: Record<string, unknown>): string {
	if (generated.basis === 'itemData') return derivedIdempotencyKey(scope, 'itemData', withoutPackageRecords(json));
	const found = fieldValues(json, generated.fields);
	if ('missing' in found) {
		parameterError(ctx, i, 'Fields to Hash', `names "${found.missing}", which ${found.empty ? 'is empty on' : 'is missing from'} the item`, 'Every item needs each field: items without it would all get the same key, and the API would perform only one of them.');
	}
	return derivedIdempotencyKey(scope, 'fields', found.values);
}

function duplicateError(ctx: IExecuteFunctions, i: number, first: number, generated: GeneratedKeySettings): never {
	const detail = 'The API would perform only one of them. List fields that tell the requests apart, or set Key Based On to Random if both are real requests.';
	if (generated.basis === 'fields') parameterError(ctx, i, 'Fields to Hash', `gives this item the same values as item ${first} (${generated.fields.join(', ')}), hence the same idempotency key`, detail);
	parameterError(ctx, i, 'Key Based On', `(Item Data) gives this item the same idempotency key as item ${first}: the two hold the same data`, detail);
}

export class IdempotencyKeys {
	private constructor(
		readonly owner: string,
		private readonly derived: Map<number, string | Error>,
	) {}

	/** Plans the derived keys of every item of this run (parameters are read per item, as everywhere). */
	static plan(ctx: IExecuteFunctions): IdempotencyKeys {
		const owner = keyOwnerOf(ctx);
		const scope: KeyScope = { workflowId: ctx.getWorkflow().id ?? '', nodeId: owner };
		const derived = new Map<number, string | Error>();
		const firstItemOf = new Map<string, number>();
		ctx.getInputData().forEach((item, i) => {
			try {
				if (ctx.getNodeParameter('idempotencyKeyMode', i, 'off') !== 'generate') return;
				const generated = readGeneratedKeySettings(ctx, i);
				// an item back from a failed pass here keeps the key it was sent with
				if (generated.basis === 'random' || ownFailedPassKey(item.json, owner) !== undefined) return;
				const key = deriveKey(ctx, i, scope, generated, item.json);
				const first = firstItemOf.get(key);
				if (first !== undefined) duplicateError(ctx, i, first, generated);
				firstItemOf.set(key, i);
				derived.set(i, key);
			} catch (error) {
				derived.set(i, error as Error);
			}
		});
		return new IdempotencyKeys(owner, derived);
	}

	/** The key item i goes out with; throws the item's parameter error when its key cannot be made. */
	pick(i: number, settings: IdempotencySettings, json: Record<string, unknown>): KeyChoice {
		if (settings.mode === 'expression') return { key: settings.key };
		if (settings.mode !== 'generate') return {};
		const recorded = ownFailedPassKey(json, this.owner);
		if (recorded !== undefined) return { key: recorded, owner: this.owner };
		// the plan holds every derived key (or its error); an item without one is on Random
		const planned = this.derived.get(i);
		if (planned instanceof Error) throw planned;
		return { key: planned ?? randomUUID(), owner: this.owner };
	}
}
