/**
 * What is checked of an item's credential before any request:
 * - its "Allowed HTTP Request Domains" (a field n8n 2.x adds to every credential a request node can
 *   use): the URL's host must be allowed, and "None" keeps the credential out of request nodes, as
 *   n8n's HTTP Request enforces it. n8n's credential helper does not check it by itself.
 * - the fields n8n's helper writes into a header (Header Auth, Bearer Auth), like typed headers: the
 *   helper would strip a line break and send a header the user did not mean.
 * Messages name the credential's field, never its value.
 */
import type { ICredentialDataDecryptedObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { assertUrlAllowed, getCredentialAllowedDomains, NodeOperationError } from 'n8n-workflow';
import { headerNameProblem, headerValueProblem } from '../../shared/core/idempotency';
import { RequestRejection } from '../types';

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

/** The oldest n8n the package is tested on (README: n8n versions; the oldest lock of scripts/n8n-lock). */
export const OLDEST_N8N = '2.33.7';
/** The first n8n whose n8n-workflow has the allowed-domains check (n8n-workflow 2.22.3). */
const ALLOWED_DOMAINS_N8N = '2.22.6';

function checkAllowedDomains(node: Readonly<INode>, data: ICredentialDataDecryptedObject, url: string, i: number): void {
	// an older n8n's n8n-workflow lacks both (the package uses n8n's own, never a copy): without this,
	// every item with a credential would fail with "assertUrlAllowed is not a function"
	if (typeof assertUrlAllowed !== 'function' || typeof getCredentialAllowedDomains !== 'function') {
		throw new NodeOperationError(node as INode, `This n8n is too old for credentials in this node: update n8n to ${OLDEST_N8N} or later (item ${i})`, {
			itemIndex: i,
			description: `It cannot check a credential's Allowed HTTP Request Domains, which n8n ${ALLOWED_DOMAINS_N8N} added; the package is tested on n8n ${OLDEST_N8N} and later (README: n8n versions). Nothing was sent for item ${i}.`,
		});
	}
	// as HTTP Request reads the setting (n8n's wording names the nodes it is set for); "None" or an
	// empty list fail here, as there (n8n's refusal keeps the node to name it, and only reads it)
	const allowedDomains = getCredentialAllowedDomains({ node: node as INode, credentialData: data, surface: 'HTTP Request or GraphQL' });
	try {
		assertUrlAllowed({ url, allowedDomains });
	} catch (error) {
		// checked before any request (nothing is sent), but failing as HTTP Request fails: n8n's
		// request helper refuses the host, so its error item holds n8n's error, its thrown error wraps it
		// n8n's own error, made HTTP Request's NodeApiError (or its error item) by settleThrown
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		throw new RequestRejection(error as Error);
	}
}

/** An item's credential and where it goes; `node`: the run's copy (RunSettings.node). */
interface CheckedCredential {
	authType: string;
	data: ICredentialDataDecryptedObject;
	url: string;
	node: Readonly<INode>;
}

/** Throws when the credential must not be used for this request (a NodeOperationError naming the item, or n8n's refusal of the host). */
export function checkCredential(ctx: IExecuteFunctions, i: number, { authType, data, url, node }: CheckedCredential): void {
	checkAllowedDomains(node, data, url, i);
	checkHeaderFields(ctx, i, authType, data);
}
