import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { systemRuntime, type Runtime } from '../shared/core/runtime';
import { backoffDelayProperties } from './description';
import { executeBackoffDelay } from './execute';

export class BackoffDelay implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Backoff Delay',
		name: 'backoffDelay',
		icon: { light: 'file:backoffDelay.svg', dark: 'file:backoffDelay.dark.svg' },
		group: ['organization'],
		version: 1,
		subtitle: '={{ "max " + $parameter["maxAttempts"] + " attempts" }}',
		description: 'The body of a retry loop in one node: counts attempts, waits with backoff, jitter and Retry-After, and routes items to Retry or Give up',
		defaults: { name: 'Backoff Delay', color: '#8a4fff' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Retry', 'Give up'],
		properties: backoffDelayProperties,
	};

	/** As in ResilientHttpRequest: the runtime is captured because n8n calls execute with its own `this`. */
	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	constructor(runtime: Runtime = systemRuntime) {
		this.execute = async function (this: IExecuteFunctions) {
			return await executeBackoffDelay(this, runtime);
		};
	}
}
