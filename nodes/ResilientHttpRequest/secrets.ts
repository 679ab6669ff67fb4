/**
 * Gathers the secrets of one item (its credential's fields, and the auth headers, query parameters
 * and proxy password of its request) into a redactor. Used on the failure path only, and built from
 * the parameters themselves, so it also serves errors raised before the request could be built.
 * Never throws: a parameter that cannot be read holds no secret to find.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { basicAuthForms, createRedactor, headerSecrets, urlSecrets, urlUserinfo, type Redactor } from '../shared/core/redact';

/** The fields of each credential type that hold a secret; other fields (URLs, names, grant types) do not. */
function credentialSecrets(type: string, c: ICredentialDataDecryptedObject): { secrets: string[]; headerNames: string[]; queryNames: string[] } {
	const str = (value: unknown) => (typeof value === 'string' ? value : '');
	switch (type) {
		case 'httpBasicAuth':
			return { secrets: [str(c.user), str(c.password), ...basicAuthForms(str(c.user), str(c.password))], headerNames: [], queryNames: [] };
		case 'httpBearerAuth':
			return { secrets: [str(c.token)], headerNames: [], queryNames: [] };
		case 'httpHeaderAuth':
			// the value whole, and its token when it has a scheme ("Bearer abc")
			return { secrets: [str(c.value), ...headerSecrets({ [str(c.name)]: str(c.value) }, [str(c.name)])], headerNames: [str(c.name)], queryNames: [] };
		case 'httpQueryAuth':
			return { secrets: [str(c.value)], headerNames: [], queryNames: [str(c.name)] };
		default: {
			// OAuth2: the client secret (in the token request's Basic header too) and every token n8n holds
			const tokens = (typeof c.oauthTokenData === 'object' && c.oauthTokenData !== null ? c.oauthTokenData : {}) as IDataObject;
			const client = [str(c.clientSecret), ...basicAuthForms(str(c.clientId), str(c.clientSecret))];
			return { secrets: [...client, str(tokens.access_token), str(tokens.refresh_token), str(tokens.id_token)], headerNames: [], queryNames: [] };
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

	const authentication = attempt(() => ctx.getNodeParameter('authentication', i, 'none') as string, 'none');
	if (authentication === 'genericCredentialType') {
		const type = attempt(() => ctx.getNodeParameter('genericAuthType', i, '') as string, '');
		const credentials = type === '' ? undefined : await ctx.getCredentials(type, i).catch(() => undefined);
		if (credentials) {
			const found = credentialSecrets(type, credentials);
			secrets.push(...found.secrets);
			headerNames.push(...found.headerNames);
			queryNames.push(...found.queryNames);
		}
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
