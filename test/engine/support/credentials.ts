/**
 * Credentials for in-process runs: decrypted data handed in by the test, credential types from
 * the test (e.g. the package's own credentials) or n8n-nodes-base, and an `ICredentialsHelper`
 * that authenticates requests the way n8n's CLI CredentialsHelper does.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialTypes,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper, isExpression } from 'n8n-workflow';
import { Credentials } from 'n8n-core';

import { baseCredentialSupportedNodes, loadBaseCredentialType } from './nodes-base';

export type CredentialDataMap = Record<string, ICredentialDataDecryptedObject>;

export class CredentialTypeRegistry implements ICredentialTypes {
	private readonly custom: ReadonlyMap<string, ICredentialType>;

	constructor(customTypes: readonly ICredentialType[] = []) {
		this.custom = new Map(customTypes.map((type) => [type.name, type]));
	}

	recognizes(name: string): boolean {
		return this.custom.has(name) || loadBaseCredentialType(name) !== undefined;
	}

	getByName(name: string): ICredentialType {
		const type = this.custom.get(name) ?? loadBaseCredentialType(name);
		if (!type) {
			throw new Error(`Unknown credential type "${name}". Pass it via options.credentialTypes.`);
		}
		return type;
	}

	getSupportedNodes(name: string): string[] {
		const custom = this.custom.get(name);
		return custom ? (custom.supportedNodes ?? []) : baseCredentialSupportedNodes(name);
	}

	/** All ancestors via `extends`, nearest first (e.g. someOAuth2Api -> ['oAuth2Api']). */
	getParentTypes(name: string): string[] {
		const parents = this.getByName(name).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}
}

/** Request option groups a generic `authenticate` may write into: headers, qs, body, auth. */
type RequestOptionGroup = Record<string, unknown>;

export class InMemoryCredentialsHelper extends ICredentialsHelper {
	/** A copy: what n8n writes back during a run (OAuth2 tokens) stays in this run. */
	private readonly data: CredentialDataMap;

	constructor(
		private readonly types: CredentialTypeRegistry,
		data: CredentialDataMap,
	) {
		super();
		this.data = structuredClone(data);
	}

	getParentTypes(name: string): string[] {
		return this.types.getParentTypes(name);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		if (!this.types.recognizes(credentialType)) return true;
		if (!this.types.getByName(credentialType).restrictToSupportedNodes) return true;
		return this.types.getSupportedNodes(credentialType).includes(nodeType);
	}

	/**
	 * Mirrors n8n's CLI CredentialsHelper.authenticate: a function `authenticate` is called as is;
	 * a generic one writes each `properties.<group>.<key>: <value>` into `requestOptions.<group>`,
	 * resolving `={{ $credentials.x }}` expressions in both key and value. A credential type without
	 * `authenticate` (in n8n-nodes-base 2.41 that includes httpBasicAuth and httpQueryAuth!)
	 * leaves the request unchanged, exactly like n8n.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.types.getByName(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			if (!workflow || !node) {
				throw new Error('Workflow and node are required for generic credential authentication');
			}
			requestOptions.headers ??= {};
			// Request options are indexed by group name here, as in n8n's own implementation.
			const target = requestOptions as unknown as Record<string, RequestOptionGroup | undefined>;
			for (const [group, entries] of Object.entries(authenticate.properties)) {
				const resolvedGroup = (target[group] ??= {});
				for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
					const resolvedKey = resolveCredentialExpression(key, credentials, workflow, node);
					resolvedGroup[resolvedKey] = resolveCredentialExpression(value, credentials, workflow, node);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	/**
	 * Mirrors n8n's CLI CredentialsHelper.preAuthentication: a type with an expirable field and a
	 * `preAuthentication` fetches its token when the field is empty or the token expired (a 401),
	 * and the token is stored for the next read.
	 */
	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		_node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.types.getByName(typeName);
		const expirable = type.properties.find((p) => p.type === 'hidden' && p.typeOptions?.expirable === true);
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		if (credentials[expirable.name] !== '' && credentials[expirable.name] !== undefined && !credentialsExpired) return undefined;
		const output = await type.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined) return undefined;
		this.data[typeName] = { ...this.data[typeName], ...output } as ICredentialDataDecryptedObject;
		this.preAuthentications.push(typeName);
		return Object.assign(credentials, output);
	}

	/** The credential types whose token preAuthentication fetched during the run, in order. */
	readonly preAuthentications: string[] = [];

	async runPreAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<Credentials> {
		return new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type, '');
	}

	/** Returns a copy so a node mutating its credentials cannot leak into the next run. */
	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.data[type];
		if (!data) {
			throw new Error(`No credentials of type "${type}" were given to runWorkflow (options.credentials).`);
		}
		return structuredClone(data);
	}

	async updateCredentials(): Promise<void> {}

	/** As n8n's database does: the token n8n fetched or refreshed is what the next read returns. */
	async updateCredentialsOauthTokenData(_nodeCredentials: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject): Promise<void> {
		this.data[type] = { ...this.data[type], oauthTokenData: structuredClone(data.oauthTokenData) };
		this.oauthTokenUpdates.push(type);
	}

	/** The credential types whose OAuth2 token n8n stored during the run, in order (a fetch or a refresh each). */
	readonly oauthTokenUpdates: string[] = [];

	getCredentialsProperties(type: string): INodeProperties[] {
		const parents = this.getParentTypes(type).reverse();
		return [...parents, type].flatMap((name) => this.types.getByName(name).properties);
	}
}

/** Same call n8n's CLI uses: `getSimpleParameterValue` with `$credentials` as an additional key. */
function resolveCredentialExpression(
	value: unknown,
	credentials: ICredentialDataDecryptedObject,
	workflow: Workflow,
	node: INode,
): string {
	if (typeof value !== 'string' || !isExpression(value)) return String(value);
	const resolved = workflow.expression.getSimpleParameterValue(node, value, 'internal', {
		$credentials: credentials,
	}, undefined, '');
	return resolved ? String(resolved) : '';
}
