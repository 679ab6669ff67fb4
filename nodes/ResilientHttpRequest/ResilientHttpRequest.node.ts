import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { systemRuntime, type Runtime } from '../shared/core/runtime';
import { getMemoryStateStore } from '../shared/state/memory-store';
import { testRedisCredential } from '../shared/state/redis-credential-test';
import type { StateStore } from '../shared/state/types';
import { limitsProperties } from './descriptions/limits.description';
import { optionsProperties } from './descriptions/options.description';
import { GENERIC_AUTH_TYPES, requestProperties } from './descriptions/request.description';
import { retryProperties } from './descriptions/retry.description';
import { executeResilientHttpRequest } from './execute';

/** Credentials are declared with the auth type that shows them, as n8n's core nodes do. */
function genericCredential(name: string) {
	return { name, required: true, displayOptions: { show: { authentication: ['genericCredentialType'], genericAuthType: [name] } } };
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
