/**
 * Gathers the secrets of one item (its credential's fields, and the auth headers, query parameters
 * and proxy password of its request) into a redactor. Used on the failure path only, and built from
 * the parameters themselves, so it also serves errors raised before the request could be built.
 * Never throws: a parameter that cannot be read holds no secret to find.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { basicAuthForms, createRedactor, headerSecrets, urlSecrets, urlUserinfo, type Redactor } from '../../shared/core/redact';
import { predefinedType, readAuthSelection, selectedCredentialType } from './auth-plan';

type Found = { secrets: string[]; headerNames: string[]; queryNames: string[] };
const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** The string leaves of a JSON field (Custom Auth's JSON, Simplified Custom Auth's placeholder values), as far as it parses. */
function jsonLeaves(raw: unknown): string[] {
	const leaves = (value: unknown): string[] => {
		if (typeof value === 'string') return [value];
		if (typeof value === 'number') return [String(value)];
		return typeof value === 'object' && value !== null ? Object.values(value).flatMap(leaves) : [];
	};
	return leaves(typeof raw === 'string' ? attempt(() => JSON.parse(raw) as unknown, raw) : raw);
}

/** Tokens and secrets an OAuth credential holds (nested too: Slack keeps its user token under `authed_user`), not `token_type` or `scope`. */
function tokenLeaves(value: unknown, depth = 0): string[] {
	if (depth > 3 || typeof value !== 'object' || value === null) return [];
	return Object.entries(value).flatMap(([key, entry]) => (typeof entry === 'string' && /(token|secret)$/i.test(key) ? [entry] : tokenLeaves(entry, depth + 1)));
}

function oauthSecrets(c: ICredentialDataDecryptedObject): string[] {
	// the client secret travels in the token request's Basic header too; OAuth1's consumer secret signs
	return [str(c.clientSecret), ...basicAuthForms(str(c.clientId), str(c.clientSecret)), str(c.consumerSecret), ...tokenLeaves(c.oauthTokenData)];
}

/** The values of one credential that a request may carry, and the header and query names that carry them. */
function credentialSecrets(type: string, c: ICredentialDataDecryptedObject): Found {
	switch (type) {
		case 'httpBasicAuth':
		case 'httpDigestAuth':
			return { secrets: [str(c.user), str(c.password), ...basicAuthForms(str(c.user), str(c.password))], headerNames: [], queryNames: [] };
		case 'httpBearerAuth':
			return { secrets: [str(c.token)], headerNames: [], queryNames: [] };
		case 'httpHeaderAuth':
			// the value whole, and its token when it has a scheme ("Bearer abc")
			return { secrets: [str(c.value), ...headerSecrets({ [str(c.name)]: str(c.value) }, [str(c.name)])], headerNames: [str(c.name)], queryNames: [] };
		case 'httpQueryAuth':
			return { secrets: [str(c.value)], headerNames: [], queryNames: [str(c.name)] };
		case 'httpCustomAuth': {
			const parsed = (typeof c.json === 'string' ? attempt(() => JSON.parse(c.json as string) as unknown, {}) : c.json) as { headers?: object; qs?: object } | null;
			const headerNames = Object.keys(parsed?.headers ?? {});
			const values = jsonLeaves(c.json);
			return { secrets: [...values, ...headerSecrets(Object.fromEntries(headerNames.map((n) => [n, String((parsed?.headers as IDataObject)[n] ?? '')])), headerNames)], headerNames, queryNames: Object.keys(parsed?.qs ?? {}) };
		}
		case 'httpTemplatedCustomAuth':
			return { secrets: jsonLeaves(c.placeholderValues), headerNames: [], queryNames: [] };
		case 'httpSslAuth':
			return { secrets: [str(c.key), str(c.passphrase)], headerNames: [], queryNames: [] };
		case 'oAuth1Api':
		case 'oAuth2Api':
		case 'resilientHttpOAuth2Api':
			return { secrets: oauthSecrets(c), headerNames: [], queryNames: [] };
		default: {
			// a predefined type: the fields its `authenticate` reads, its password and token fields
			const fields = predefinedType(type)?.secretFields ?? [];
			return { secrets: [...fields.map((f) => str(c[f])), ...oauthSecrets(c)], headerNames: [], queryNames: [] };
		}
	}
}

function attempt<T>(read: () => T, fallback: T): T {
	try {
		return read();
	} catch {
		return fallback;
	}
}

/** Name/value pairs of a key-value collection or of its JSON form, as far as they can be read. */
function pairsOf(ctx: IExecuteFunctions, i: number, collection: string, json: string): Array<[string, string]> {
	const keyPairs = attempt(() => ((ctx.getNodeParameter(collection, i, {}) as { parameters?: Array<{ name?: unknown; value?: unknown }> }).parameters ?? []), []);
	const pairs: Array<[string, string]> = keyPairs.map((p) => [String(p.name ?? ''), String(p.value ?? '')]);
	const raw = attempt(() => ctx.getNodeParameter(json, i, '') as unknown, '');
	let parsed: unknown = raw;
	if (typeof raw === 'string') parsed = attempt(() => JSON.parse(raw) as unknown, undefined);
	if (typeof parsed === 'object' && parsed !== null) {
		for (const [name, value] of Object.entries(parsed)) pairs.push([name, typeof value === 'string' ? value : JSON.stringify(value)]);
	}
	return pairs;
}

export async function itemRedactor(ctx: IExecuteFunctions, i: number): Promise<Redactor> {
	const secrets: string[] = [];
	const headerNames: string[] = [];
	const queryNames: string[] = [];

	const selection = attempt(() => readAuthSelection(ctx, i), undefined);
	const types = [selection ? selectedCredentialType(selection) : undefined, attempt(() => ctx.getNodeParameter('provideSslCertificates', i, false) === true, false) ? 'httpSslAuth' : undefined];
	for (const type of types) {
		const credentials = type === undefined ? undefined : await ctx.getCredentials(type, i).catch(() => undefined);
		if (!type || !credentials) continue;
		const found = credentialSecrets(type, credentials);
		secrets.push(...found.secrets);
		headerNames.push(...found.headerNames);
		queryNames.push(...found.queryNames);
	}

	const url = attempt(() => String(ctx.getNodeParameter('url', i, '')), '');
	secrets.push(...urlSecrets(url, queryNames));
	// the request carries a URL's user and password as `Authorization: Basic <base64>`, which a server may quote alone
	const userinfo = urlUserinfo(url);
	if (userinfo) secrets.push(...basicAuthForms(userinfo.user, userinfo.password));
	const query = pairsOf(ctx, i, 'queryParameters', 'jsonQuery');
	secrets.push(...urlSecrets(`?${query.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&')}`, queryNames));
	secrets.push(...headerSecrets(Object.fromEntries(pairsOf(ctx, i, 'headerParameters', 'jsonHeaders')), headerNames));

	const options = attempt(() => ctx.getNodeParameter('options', i, {}) as IDataObject, {});
	if (typeof options.proxy === 'string' && options.proxy.trim() !== '') {
		const proxy = options.proxy.trim();
		// the userinfo only: a proxy URL has no query; Proxy-Authorization carries it in base64
		const userinfo = urlUserinfo(proxy.includes('://') ? proxy : `http://${proxy}`);
		if (userinfo) secrets.push(userinfo.user, userinfo.password, ...basicAuthForms(userinfo.user, userinfo.password));
	}
	return createRedactor({ secrets, headerNames, queryNames });
}
