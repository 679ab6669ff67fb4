import type { IDataObject, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { loadBaseNodeType } from './nodes-base';

export type NodeTypeMap = Record<string, INodeType | IVersionedNodeType>;

/**
 * The `INodeTypes` registry a Workflow resolves node types through: nodes passed by the test
 * (e.g. the package's own node) first, then n8n-nodes-base on demand.
 */
export class NodeTypeRegistry implements INodeTypes {
	constructor(private readonly custom: NodeTypeMap = {}) {}

	getByName(type: string): INodeType | IVersionedNodeType {
		const nodeType = this.custom[type] ?? loadBaseNodeType(type);
		if (!nodeType) {
			// Fail loudly: n8n would silently skip an unknown node and report "workflow has issues".
			throw new Error(
				`Unknown node type "${type}". Pass it to runWorkflow via options.nodeTypes ` +
					'(key = the full type name used in the workflow JSON).',
			);
		}
		return nodeType;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}
