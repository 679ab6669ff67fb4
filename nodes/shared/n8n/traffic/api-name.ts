/**
 * How an API's traffic controller is named: its key in the store, and how the log and the Traffic
 * Control node call it. By default an API is its origin as seen with one credential (another key
 * has other limits); a scope the user names makes one API of whatever shares it. The key is a
 * hash: a scope may hold an API key, and the default holds the credential's id.
 */
import { hash } from 'node:crypto';
import type { INode } from 'n8n-workflow';

export interface ApiName {
	/** The controller's key in the store. */
	key: string;
	/** How the log names the API: its host, or "its scope" (a scope may hold a secret). */
	label: string;
}

/** The key hashed last: the items of a run mostly call one API (one hash per run, not per item). */
let lastHashed: { scope: string; key: string } | undefined;

function hashed(scope: string): string {
	if (lastHashed?.scope !== scope) lastHashed = { scope, key: `api:${hash('sha256', scope, 'hex').slice(0, 32)}` };
	return lastHashed.key;
}

/** A controller key as nameApi makes it (what an operator may paste from Get State). */
export function isApiKey(value: string): boolean {
	return /^api:[0-9a-f]{32}$/.test(value);
}

/** The credential a request goes out with: its type and id, as the node's parameters name it. */
function credentialIdentity(node: Readonly<INode>, credentialType: string | undefined): string {
	if (credentialType === undefined) return 'none';
	const credential = node.credentials?.[credentialType];
	return `${credentialType}:${credential?.id ?? credential?.name ?? ''}`;
}

/**
 * The API a request to `url` belongs to, sent with the node's credential of `credentialType`
 * (undefined: none), or with the user's `scope` ('' for none).
 */
export function nameApi(url: URL, node: Readonly<INode>, credentialType: string | undefined, scope: string): ApiName {
	const named = nameScope(scope);
	if (named) return named;
	return { key: hashed(`origin:${url.origin}|${credentialIdentity(node, credentialType)}`), label: url.host };
}

/** The API a scope names ('' for none: undefined), as nameApi names it: Traffic Control's Wait for Room and Resilient HTTP Request's API Scope share it. */
export function nameScope(scope: string): ApiName | undefined {
	return scope === '' ? undefined : { key: hashed(`scope:${scope}`), label: 'its scope' };
}

/** The infix of a Fair Share Key's controller key, after its API's (keyShareOf). */
const KEY_SHARE = ':key:';

/**
 * The controller key of one Fair Share Key's own limits (core/traffic/key-gate.ts) at the API
 * `apiKey`: a hash of both, so that the key's value (a customer id) is never stored nor logged.
 */
export function keyShareOf(apiKey: string, share: string): string {
	return `${apiKey}${KEY_SHARE}${hash('sha256', `${apiKey}|${share}`, 'hex').slice(0, 32)}`;
}

/** A controller key keyShareOf made: a key's limits, not an API (the operator's views leave it out). */
export function isKeyShareKey(key: string): boolean {
	return key.includes(KEY_SHARE);
}
