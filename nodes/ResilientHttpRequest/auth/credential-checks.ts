/**
 * What is checked of an item's credential before any request:
 * - its "Allowed HTTP Request Domains" (a field n8n 2.x adds to every credential a request node can
 *   use): the URL's host must be allowed, and "None" keeps the credential out of request nodes, as
 *   n8n's HTTP Request enforces it. n8n's credential helper does not check it by itself.
 * - the fields n8n's helper writes into a header (Header Auth, Bearer Auth), like typed headers: the
 *   helper would strip a line break and send a header the user did not mean.
 * Messages name the credential's field, never its value.
 */
import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';
import { assertCredentialAllowsUrl, NodeOperationError } from 'n8n-workflow';
import { headerNameProblem, headerValueProblem } from '../../shared/core/idempotency';

/** Each header-carried field: the credential's label, the field's display name, and what is wrong with a value. */
const HEADER_FIELDS: Partial<Record<string, { label: string; fields: Array<{ key: string; displayName: string; problem: (value: string) => string | undefined }> }>> = {
	httpHeaderAuth: {
		label: 'Header Auth',
		fields: [
			{ key: 'name', displayName: 'Name', problem: (name) => { const p = headerNameProblem(name); return p ? `is invalid: ${p}` : undefined; } },
			{ key: 'value', displayName: 'Value', problem: (value) => headerValueProblem(value) },
		],
	},
	httpBearerAuth: { label: 'Bearer Auth', fields: [{ key: 'token', displayName: 'Bearer Token', problem: (token) => headerValueProblem(token) }] },
};

function checkHeaderFields(ctx: IExecuteFunctions, i: number, authType: string, data: ICredentialDataDecryptedObject): void {
	const spec = HEADER_FIELDS[authType];
	if (!spec) return;
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

function checkAllowedDomains(ctx: IExecuteFunctions, i: number, data: ICredentialDataDecryptedObject, url: string): void {
	try {
		// n8n's own wording ("within an HTTP Request node"): the user set it with request nodes in mind
		assertCredentialAllowsUrl({ node: ctx.getNode(), credentialData: data, url });
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), `${(error as Error).message} (item ${i})`, {
			itemIndex: i,
			description: `Item ${i}: the credential's "Allowed HTTP Request Domains" does not allow this request. Change the URL, or the credential's allowed domains.`,
		});
	}
}

/** Throws a NodeOperationError naming the item when the credential must not be used for this request. */
export function checkCredential(ctx: IExecuteFunctions, i: number, authType: string, data: ICredentialDataDecryptedObject, url: string): void {
	checkAllowedDomains(ctx, i, data, url);
	checkHeaderFields(ctx, i, authType, data);
}
