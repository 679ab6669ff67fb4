import type { IExecuteFunctions, INodeCredentialDescription, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { systemRuntime, type Runtime } from '../shared/core/runtime';
import { getMemoryStateStore } from '../shared/state/memory-store';
import { testRedisCredential } from '../shared/state/redis-credential-test';
import type { StateStore } from '../shared/state/types';
import { limitsProperties } from './descriptions/limits.description';
import { optionsProperties } from './descriptions/options.description';
import { GENERIC_AUTH_TYPES, requestProperties, type GenericAuthType } from './descriptions/request.description';
import { retryProperties } from './descriptions/retry.description';
import { executeResilientHttpRequest } from './execute';

/**
 * Each credential type is declared with the parameter values that select it. n8n's editor takes
 * Generic Auth Type for the node's "main auth field" (every one of its values selects a declared
 * credential through `show`) and lays it out as in n8n's own nodes: the parameter is hidden, one
 * credential picker lists the credentials of every kind (picking one of another kind switches the
 * kind), and creating a credential asks which kind (checked in n8n 2.41.1's editor:
 * getMainAuthField, useNodeCredentialOptions). "None" is not a kind there, so it stays a value of
 * Authentication; that condition is written as `hide`, which the editor's main-auth-field rule
 * ignores: with `show: { authentication: [...] }` it would hide Authentication too, and a node set
 * to None would offer no way to choose a credential at all. n8n-core reads both forms alike when
 * it checks a credential against the node.
 */
export function genericCredential(name: GenericAuthType): INodeCredentialDescription {
	return { name, required: true, displayOptions: { show: { genericAuthType: [name] }, hide: { authentication: ['none'] } } };
}

export class ResilientHttpRequest implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Resilient HTTP Request',
		name: 'resilientHttpRequest',
		icon: { light: 'file:resilientHttpRequest.svg', dark: 'file:resilientHttpRequest.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["method"] + " · " + $parameter["maxAttempts"] + " attempts" }}',
		description: 'Makes an HTTP request and retries each item on its own, with backoff, jitter, Retry-After and idempotency keys',
		defaults: { name: 'Resilient HTTP Request', color: '#0004F5' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			...GENERIC_AUTH_TYPES.map(genericCredential),
			{ name: 'resilientHttpRedis', required: true, testedBy: 'resilientHttpRedisConnectionTest', displayOptions: { show: { stateStore: ['redis'] } } },
		],
		properties: [...requestProperties, ...retryProperties, ...limitsProperties, ...optionsProperties],
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
