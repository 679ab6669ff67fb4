/**
 * Which credential signs an item's request, and how: read from the node's parameters (with HTTP
 * Request's names and values), checked before any request, and turned into a plan the transport
 * applies on every attempt. Each kind is applied the way HTTP Request applies it, through n8n's
 * helpers wherever n8n has one.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, INode, IOAuth2Options } from 'n8n-workflow';
import { jsonParse, NodeOperationError } from 'n8n-workflow';
import { headerNameProblem, headerValueProblem } from '../../shared/core/idempotency';
import { parameterError } from '../../shared/n8n/parameters';
import { checkCredential } from './credential-checks';
import { isGenericAuthType, type GenericAuthType } from './generic-auth-types';
import { PREDEFINED_CREDENTIAL_TYPES } from './generated/predefined-credentials';
import type { PredefinedCredentialType } from './predefined-credential-type';

const PREDEFINED = new Map(PREDEFINED_CREDENTIAL_TYPES.map((type) => [type.name, type]));

export function predefinedType(name: string): PredefinedCredentialType | undefined {
	return PREDEFINED.get(name);
}

/** What the node's parameters choose: no credential, or a credential type (generic or predefined). */
export type AuthSelection = { authentication: 'none' } | { authentication: 'genericCredentialType'; type: GenericAuthType } | { authentication: 'predefinedCredentialType'; type: PredefinedCredentialType };

export type AuthPlan =
	| { kind: 'none' }
	/** n8n's httpRequestWithAuthentication (the type's `authenticate`); `refreshOn`: statuses after which n8n refreshes the credential and sends again */
	| { kind: 'authenticate'; credentialType: string; refreshOn: number[]; writesBody: boolean; shownHeaders?: string[] }
	/** n8n's requestOAuth2 / requestOAuth1, as HTTP Request calls them: token, signing and refresh are n8n's */
	| { kind: 'oAuth2'; credentialType: string; oauth2: IOAuth2Options }
	| { kind: 'oAuth1'; credentialType: string }
	/** Basic, Digest, Query and Custom Auth have no `authenticate` in n8n: HTTP Request applies them itself, and so does the node */
	| { kind: 'basic'; username: string; password: string }
	| { kind: 'digest'; username: string; password: string }
	| { kind: 'query'; name: string; value: string }
	| { kind: 'custom'; headers: Record<string, string>; qs: IDataObject; body: IDataObject };

/** Reads Authentication and the credential type it names; a value the node does not offer fails here, naming the parameter and the item. */
export function readAuthSelection(ctx: IExecuteFunctions, i: number): AuthSelection {
	const authentication = ctx.getNodeParameter('authentication', i, 'none') as unknown;
	if (authentication === 'none' || authentication === undefined || authentication === '') return { authentication: 'none' };
	if (authentication === 'genericCredentialType') {
		const type = ctx.getNodeParameter('genericAuthType', i, '') as unknown;
		if (!isGenericAuthType(type)) parameterError(ctx, i, 'Generic Auth Type', `is ${JSON.stringify(type)}, not a kind this node supports (Basic, Bearer, Custom, Digest, Header, Query or Simplified Custom Auth, OAuth1 or OAuth2 API)`);
		return { authentication, type };
	}
	if (authentication === 'predefinedCredentialType') {
		const name = ctx.getNodeParameter('nodeCredentialType', i, '') as unknown;
		if (typeof name !== 'string' || name === '') parameterError(ctx, i, 'Credential Type', 'is empty: choose the service whose credential signs the request');
		const type = PREDEFINED.get(name);
		if (!type) {
			parameterError(ctx, i, 'Credential Type', `is "${name}", a credential type this node does not offer: it offers the ${PREDEFINED.size} types HTTP Request offers in n8n 2.41.1. Choose a Generic Credential Type, or keep the HTTP Request node for this request`);
		}
		return { authentication, type };
	}
	parameterError(ctx, i, 'Authentication', `must be None, Predefined Credential Type or Generic Credential Type, got ${JSON.stringify(authentication)}`);
}

/** The credential type an item's request reads, or undefined for None. */
export function selectedCredentialType(selection: AuthSelection): string | undefined {
	return selection.authentication === 'none' ? undefined : selection.authentication === 'genericCredentialType' ? selection.type : selection.type.name;
}

const text = (value: unknown) => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));

/** Names the credential's field, never its value (it holds the secrets). */
function credentialError(ctx: IExecuteFunctions, i: number, label: string, field: string, problem: string): never {
	throw new NodeOperationError(ctx.getNode(), `The ${label} credential's ${field} ${problem} (item ${i})`, {
		itemIndex: i,
		description: `Item ${i}: fix the ${label} credential's field "${field}".`,
	});
}

/** Custom Auth: a JSON object with `headers`, `qs` and `body` objects, as HTTP Request reads it. */
function customAuthPlan(ctx: IExecuteFunctions, i: number, data: ICredentialDataDecryptedObject): AuthPlan {
	let parsed: unknown;
	try {
		parsed = typeof data.json === 'object' && data.json !== null ? data.json : jsonParse(text(data.json) || '{}');
	} catch {
		// the text holds secrets: never quote it
		credentialError(ctx, i, 'Custom Auth', 'JSON', 'is not valid JSON');
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) credentialError(ctx, i, 'Custom Auth', 'JSON', 'is not a JSON object');
	const parts = parsed as Record<string, unknown>;
	const part = (name: 'headers' | 'qs' | 'body'): IDataObject => {
		const value = parts[name];
		if (value === undefined) return {};
		if (typeof value !== 'object' || value === null || Array.isArray(value)) credentialError(ctx, i, 'Custom Auth', 'JSON', `has "${name}" that is not a JSON object`);
		return value as IDataObject;
	};
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(part('headers'))) {
		const nameProblem = headerNameProblem(name);
		if (nameProblem) credentialError(ctx, i, 'Custom Auth', 'JSON', `has an invalid header name: ${nameProblem}`);
		const valueText = typeof value === 'string' ? value : JSON.stringify(value);
		if (headerValueProblem(valueText)) credentialError(ctx, i, 'Custom Auth', 'JSON', `has a value for header "${name}" that ${headerValueProblem(valueText)}`);
		headers[name] = valueText;
	}
	return { kind: 'custom', headers, qs: part('qs'), body: part('body') };
}

/**
 * The statuses after which n8n's helper re-authenticates and sends once more: a type that fetches
 * a token first (preAuthentication) refreshes it on a 401, as in HTTP Request; others never, as a
 * second request would carry the same credential.
 */
function refreshStatuses(type: PredefinedCredentialType | undefined): number[] {
	return type?.preAuthentication ? [401] : [];
}

function templatedAuthWritesBody(data: ICredentialDataDecryptedObject): boolean {
	try {
		const template = jsonParse<IDataObject>(text(data.template) || '{}');
		return typeof template === 'object' && template !== null && template.body !== undefined;
	} catch {
		// n8n's helper reports a broken template itself, in its own words
		return false;
	}
}

/** Reads the item's credential once, checks it against the request, and returns how to apply it. */
export async function readAuthPlan(ctx: IExecuteFunctions, i: number, { url, selection, node }: { url: string; selection: AuthSelection; node: Readonly<INode> }): Promise<AuthPlan> {
	if (selection.authentication === 'none') return { kind: 'none' };
	const credentialType = selectedCredentialType(selection) as string;
	const data = await ctx.getCredentials(credentialType, i);
	checkCredential(ctx, i, { authType: credentialType, data, url, node });

	if (selection.authentication === 'predefinedCredentialType') {
		const type = selection.type;
		if (type.kind === 'oAuth2') return { kind: 'oAuth2', credentialType, oauth2: type.oauth2 ?? {} };
		if (type.kind === 'oAuth1') return { kind: 'oAuth1', credentialType };
		return { kind: 'authenticate', credentialType, refreshOn: refreshStatuses(type), writesBody: type.writesBody === true };
	}
	switch (selection.type) {
		case 'httpBasicAuth':
			return { kind: 'basic', username: text(data.user), password: text(data.password) };
		case 'httpDigestAuth':
			return { kind: 'digest', username: text(data.user), password: text(data.password) };
		case 'httpQueryAuth':
			return { kind: 'query', name: text(data.name), value: text(data.value) };
		case 'httpCustomAuth':
			return customAuthPlan(ctx, i, data);
		case 'oAuth2Api':
		case 'resilientHttpOAuth2Api':
			// HTTP Request's own call for its generic OAuth2 type
			return { kind: 'oAuth2', credentialType, oauth2: { tokenType: 'Bearer' } };
		case 'oAuth1Api':
			return { kind: 'oAuth1', credentialType };
		case 'httpTemplatedCustomAuth':
			return { kind: 'authenticate', credentialType, refreshOn: [], writesBody: templatedAuthWritesBody(data) };
		default:
			// Bearer and Header Auth; `shownHeaders`: the header HTTP Request sets itself, which its `$request` shows (hidden)
			return { kind: 'authenticate', credentialType, refreshOn: [], writesBody: false, shownHeaders: [selection.type === 'httpBearerAuth' ? 'Authorization' : text(data.name)] };
	}
}
