/**
 * What is known of an item before any of its parameters is read: its index, its json and a
 * redactor of its secrets. Building it never throws, so that an error in reading the parameters
 * (a bad URL that quotes a token, say) is redacted like every other error of the item.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { Redactor } from '../../shared/core/redact';
import { itemRedactor } from '../auth/secrets';

export interface ItemScope {
	readonly index: number;
	readonly json: IDataObject;
	/** The item's redactor, built the first time it is asked for (it reads the credentials) and then kept. */
	redactor(): Promise<Redactor>;
}

export function itemScope(ctx: IExecuteFunctions, index: number): ItemScope {
	let redactor: Promise<Redactor> | undefined;
	return Object.freeze({
		index,
		json: ctx.getInputData()[index].json,
		redactor: () => (redactor ??= itemRedactor(ctx, index)),
	});
}
