/**
 * What the transport needs for one item, read and checked before any request: the credential and
 * how to apply it, client certificates, redirects, timeouts, SSL and proxy options.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { numberParameter, parameterError } from '../../shared/n8n/parameters';
import { readAuthPlan, type AuthPlan, type AuthSelection } from '../auth/auth-plan';
import { bodyFields } from '../transport/body-fields';
import { checkCredential } from '../auth/credential-checks';
import { DEFAULT_MAX_REDIRECTS, MAX_REDIRECTS_LIMIT } from '../descriptions/options.description';
import { normalizePem } from '../auth/pem';
import type { RequestSpec } from '../types';
import type { TlsOptions, TransportSettings } from '../transport/send-attempt';

/** Parses `http://user:pass@host:port` into n8n's proxy option. */
function parseProxy(ctx: IExecuteFunctions, raw: string, i: number): IHttpRequestOptions['proxy'] | undefined {
	if (raw.trim() === '') return undefined;
	let url: URL;
	try {
		url = new URL(raw.includes('://') ? raw.trim() : `http://${raw.trim()}`);
	} catch {
		// the value may hold a password: do not echo it
		throw new NodeOperationError(ctx.getNode(), 'Parameter "Proxy" is not a valid URL', { itemIndex: i, description: 'Expected a form like http://user:password@proxy.example.com:3128' });
	}
	return {
		protocol: url.protocol.replace(':', ''),
		host: url.hostname,
		port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
		...(url.username ? { auth: { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } } : {}),
	};
}

/** A credential that adds body fields needs a body that can take them: checked here, not half way through an attempt. */
function checkBodyTakesFields(ctx: IExecuteFunctions, i: number, plan: AuthPlan, spec: RequestSpec): void {
	const addsFields = (plan.kind === 'authenticate' && plan.writesBody) || (plan.kind === 'custom' && Object.keys(plan.body).length > 0);
	if (!addsFields) return;
	const fields = bodyFields(spec.body, spec.headers);
	if (fields.kind === 'unsupported') parameterError(ctx, i, 'Body Content Type', `cannot be used with this credential, which adds its own fields to the request body: ${fields.why}`);
}

/** SSL Certificates (HTTP Request's `provideSslCertificates` and its `httpSslAuth` credential), PEM rebuilt as n8n does. */
async function readTls(ctx: IExecuteFunctions, i: number, url: string, node: Readonly<INode>): Promise<TlsOptions | undefined> {
	if (ctx.getNodeParameter('provideSslCertificates', i, false) !== true) return undefined;
	const data: ICredentialDataDecryptedObject = await ctx.getCredentials('httpSslAuth', i);
	checkCredential(ctx, i, { authType: 'httpSslAuth', data, url, node });
	const field = (name: string) => (typeof data[name] === 'string' && data[name] !== '' ? (data[name] as string) : undefined);
	const ca = field('ca');
	const cert = field('cert');
	const key = field('key');
	const passphrase = field('passphrase');
	const clientCertificate = { ...(cert ? { cert: normalizePem(cert) } : {}), ...(key ? { key: normalizePem(key) } : {}), ...(passphrase ? { passphrase } : {}) };
	return { ...(ca ? { ca: normalizePem(ca) } : {}), ...(Object.keys(clientCertificate).length > 0 ? { clientCertificate } : {}) };
}

/** Options > Timeout, which must fit in the attempt's own bound (the node never cuts an attempt sooner than the user asked). */
function readResponseTimeout(ctx: IExecuteFunctions, i: number, options: IDataObject, attemptTimeoutMs: number): number | undefined {
	if (options.timeout === undefined) return undefined;
	const timeout = numberParameter(ctx, i, 'Timeout', options.timeout, { integer: true, min: 1 });
	if (attemptTimeoutMs > 0 && timeout > attemptTimeoutMs) {
		parameterError(ctx, i, 'Timeout', `(${timeout} ms) is longer than "Attempt Timeout (Ms)" (${attemptTimeoutMs} ms), which bounds each whole attempt: raise Attempt Timeout to at least ${timeout}, or lower Timeout`);
	}
	return timeout;
}

/** What the transport reads of an item, already read by its config. */
interface TransportInputs {
	spec: RequestSpec;
	options: IDataObject;
	auth: AuthSelection;
	/** The run's copy of the node (RunSettings.node), for the credentials' checks. */
	node: Readonly<INode>;
	attemptTimeoutMs: number;
}

export async function readTransportSettings(ctx: IExecuteFunctions, i: number, { spec, options, auth: selection, node, attemptTimeoutMs }: TransportInputs): Promise<TransportSettings> {
	const redirect = ((options.redirect as IDataObject | undefined)?.redirect ?? {}) as IDataObject;
	// read once per item: checked here, applied on every attempt
	const auth = await readAuthPlan(ctx, i, { url: spec.url, selection, node });
	checkBodyTakesFields(ctx, i, auth, spec);
	const tls = await readTls(ctx, i, spec.url, node);
	const responseTimeoutMs = readResponseTimeout(ctx, i, options, attemptTimeoutMs);
	return {
		auth,
		...(tls ? { tls } : {}),
		followRedirects: redirect.followRedirects !== false,
		maxRedirects: numberParameter(ctx, i, 'Max Redirects', redirect.maxRedirects ?? DEFAULT_MAX_REDIRECTS, { integer: true, min: 0, max: MAX_REDIRECTS_LIMIT }),
		sendCredentialsCrossOrigin: options.sendCredentialsOnCrossOriginRedirect === true,
		...(responseTimeoutMs !== undefined ? { responseTimeoutMs } : {}),
		skipSslCertificateValidation: options.allowUnauthorizedCerts === true,
		...(typeof options.proxy === 'string' && options.proxy.trim() !== '' ? { proxy: parseProxy(ctx, options.proxy, i) } : {}),
	};
}
