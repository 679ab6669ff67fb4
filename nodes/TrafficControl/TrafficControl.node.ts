import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { systemRuntime, type Runtime } from '../shared/core/runtime';
import type { StateStore, TrafficInspector } from '../shared/core/traffic/store';
import { getMemoryStateStore } from '../shared/state/memory-store';
import { testRedisCredential } from '../shared/state/redis-credential-test';
import { trafficControlProperties } from './description';
import { executeTrafficControl } from './execute';

/**
 * The operator's view of the Resilient HTTP Request nodes' traffic controllers: every API's state as
 * items, and a pause or a hold ended by hand, from a workflow or the editor (Execute step).
 */
export class TrafficControl implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Resilient HTTP Traffic Control',
		name: 'resilientHttpTrafficControl',
		icon: { light: 'file:trafficControl.svg', dark: 'file:trafficControl.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle:
			'={{ $parameter["operation"] === "resume" ? "End pause or hold: " + $parameter["api"] : $parameter["operation"] === "getMetrics" ? "Get metrics" : $parameter["operation"] === "waitForRoom" ? "Wait for room" : $parameter["operation"] === "reportOutcome" ? "Report outcome" : "Get state" }}',
		description: "Reads every API's traffic controller (paused, held, window, pace, budget) and its metrics, ends a pause or an outage hold by hand, and puts any node behind an API's controller (Wait for Room before it, Report Outcome after it)",
		defaults: { name: 'Traffic Control' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		// Report Outcome routes items as IF does: what succeeded, what failed
		outputs: `={{ $parameter["operation"] === "reportOutcome" ? [{ type: "${NodeConnectionTypes.Main}", displayName: "Success" }, { type: "${NodeConnectionTypes.Main}", displayName: "Failed" }] : ["${NodeConnectionTypes.Main}"] }}`,
		credentials: [{ name: 'resilientHttpRedis', required: true, testedBy: 'resilientHttpRedisConnectionTest', displayOptions: { show: { stateStore: ['redis'] } } }],
		properties: trafficControlProperties,
	};

	methods = { credentialTest: { resilientHttpRedisConnectionTest: testRedisCredential } };

	/** As in ResilientHttpRequest: n8n calls execute with its own `this`, so the clock and the memory store are captured here. */
	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	constructor(runtime: Runtime = systemRuntime, memoryStore: StateStore & TrafficInspector = getMemoryStateStore()) {
		this.execute = async function (this: IExecuteFunctions) {
			return await executeTrafficControl(this, runtime, memoryStore);
		};
	}
}
