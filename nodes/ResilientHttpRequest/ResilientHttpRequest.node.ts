import type { IExecuteFunctions, INodeCredentialDescription, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { systemRuntime, type Runtime } from '../shared/core/runtime';
import { getMemoryStateStore } from '../shared/state/memory-store';
import { testRedisCredential } from '../shared/state/redis-credential-test';
import type { StateStore } from '../shared/core/traffic/store';
import { limitsProperties } from './descriptions/limits.description';
import { optionsProperties } from './descriptions/options.description';
import { otherThan } from './descriptions/auth.description';
import { GENERIC_AUTH_TYPES, type GenericAuthType } from './auth/generic-auth-types';
import { requestProperties } from './descriptions/request.description';
import { PREDEFINED_CREDENTIAL_TYPES } from './auth/generated/predefined-credentials';
import { retryProperties } from './descriptions/retry.description';
import { toolProperties } from './descriptions/tool.description';
import { executeResilientHttpRequest } from './execute';

/**
 * Each credential type is declared with the parameter values that select it. n8n's editor takes
 * Generic Auth Type for the node's "main auth field" (every one of its values selects a declared
 * credential through `show`) and lays it out as in n8n's own nodes: the parameter is hidden, one
 * credential picker lists the credentials of every kind (picking one of another kind switches the
 * kind), and creating a credential asks which kind (checked in n8n 2.41.1's editor:
 * getMainAuthField, useNodeCredentialOptions). "None" and "Predefined Credential Type" are not
 * kinds there, so they stay values of Authentication; those conditions are written as `hide`, which
 * the editor's main-auth-field rule ignores: with `show: { authentication: [...] }` it would hide
 * Authentication too, and a node set to None would offer no way to choose a credential at all.
 * n8n-core reads both forms alike when it checks a credential against the node.
 */
function genericCredential(name: GenericAuthType): INodeCredentialDescription {
	return { name, required: true, displayOptions: { show: { genericAuthType: [name] }, hide: { authentication: otherThan('genericCredentialType') } } };
}

/**
 * A predefined type is declared the same way, selected by Credential Type (nodeCredentialType).
 * When two parameters qualify as the main auth field, the editor takes the first it finds in the
 * order of the credentials' `show` keys: the generic declarations come first, so Generic Auth Type
 * stays the main field (hidden, its kinds in one picker) and Credential Type stays a visible,
 * searchable list; its chosen type gets a picker of its own (checked in n8n 2.41.1's editor:
 * test/e2e/drop-in.e2e.mjs).
 */
function predefinedCredential(name: string): INodeCredentialDescription {
	return { name, required: true, displayOptions: { show: { nodeCredentialType: [name] }, hide: { authentication: otherThan('predefinedCredentialType') } } };
}

/**
 * The node's description, and so the tool's when the user writes none: n8n copies it into the tool
 * variant's Description (toolDescription) and, when that is empty, hands it to the model itself
 * (n8n 2.41.1 builds the tool from this description at run time, without `usableAsTool`
 * replacements, so a tool-only text there would show in the editor and never reach the model).
 * HTTP Request Tool says "Makes an HTTP request and returns the response data"; a model also needs
 * to know that rate limits are handled (so it does not call again at once) and how a failure reads.
 */
export const TOOL_DESCRIPTION =
	'Makes an HTTP request and returns the response data. Retries rate limits (429) and temporary server errors on its own, with backoff and the wait the server asks for; on failure it says what failed, the HTTP status, how many attempts were made and when the server allows another try.';

export class ResilientHttpRequest implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Resilient HTTP Request',
		name: 'resilientHttpRequest',
		icon: { light: 'file:resilientHttpRequest.svg', dark: 'file:resilientHttpRequest.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["method"] + " · " + $parameter["maxAttempts"] + " attempts" }}',
		description: TOOL_DESCRIPTION,
		defaults: { name: 'Resilient HTTP Request', color: '#0004F5' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			...GENERIC_AUTH_TYPES.map(genericCredential),
			...PREDEFINED_CREDENTIAL_TYPES.map((type) => predefinedCredential(type.name)),
			{ name: 'httpSslAuth', required: true, displayOptions: { show: { provideSslCertificates: [true] } } },
			{ name: 'resilientHttpRedis', required: true, testedBy: 'resilientHttpRedisConnectionTest', displayOptions: { show: { stateStore: ['redis'] } } },
		],
		properties: [
			...requestProperties,
			...retryProperties,
			...limitsProperties,
			...optionsProperties,
			...toolProperties,
			// HTTP Request's own notice, where it has it: each attempt goes to the console (console-requests.ts)
			{ displayName: "You can view the raw requests this node makes in your browser's developer console", name: 'infoMessage', type: 'notice', default: '' },
		],
	};

	methods = { credentialTest: { resilientHttpRedisConnectionTest: testRedisCredential } };

	/**
	 * n8n calls `execute` with the execution context as `this`, so the runtime (clock, random,
	 * sleeper) and the state store are captured here: n8n gets the system runtime and the
	 * process-wide memory store, engine tests a virtual runtime and a store of their own.
	 */
	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	constructor(runtime: Runtime = systemRuntime, memoryStore: StateStore = getMemoryStateStore()) {
		this.execute = async function (this: IExecuteFunctions) {
			return await executeResilientHttpRequest(this, runtime, memoryStore);
		};
	}
}
