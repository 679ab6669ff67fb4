/**
 * Credentials that n8n's helper writes into a header (Header Auth, Bearer Auth) are checked like
 * typed headers, before any request: the helper would strip a line break and send a header the
 * user did not mean. The message names the credential's field, never its value.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { headerNameProblem, headerValueProblem } from '../shared/core/idempotency';
import type { GenericAuthType } from './descriptions/request.description';

/** Each header-carried field: the credential's label, the field's display name, and what is wrong with a value. */
const HEADER_FIELDS: Partial<Record<GenericAuthType, { label: string; fields: Array<{ key: string; displayName: string; problem: (value: string) => string | undefined }> }>> = {
	httpHeaderAuth: {
		label: 'Header Auth',
		fields: [
			{ key: 'name', displayName: 'Name', problem: (name) => { const p = headerNameProblem(name); return p ? `is invalid: ${p}` : undefined; } },
			{ key: 'value', displayName: 'Value', problem: (value) => headerValueProblem(value) },
		],
	},
	httpBearerAuth: { label: 'Bearer Auth', fields: [{ key: 'token', displayName: 'Bearer Token', problem: (token) => headerValueProblem(token) }] },
};

export async function checkHeaderCredential(ctx: IExecuteFunctions, i: number, authType: GenericAuthType | 'none'): Promise<void> {
	const spec = authType === 'none' ? undefined : HEADER_FIELDS[authType];
	if (!spec) return;
	const data = await ctx.getCredentials(authType, i);
	for (const field of spec.fields) {
		const problem = field.problem(typeof data[field.key] === 'string' ? (data[field.key] as string) : String(data[field.key] ?? ''));
		if (problem) {
			throw new NodeOperationError(ctx.getNode(), `The ${spec.label} credential's ${field.displayName} ${problem} (item ${i})`, {
				itemIndex: i,
				description: `Item ${i}: fix the ${spec.label} credential's field "${field.displayName}".`,
			});
		}
	}
}
