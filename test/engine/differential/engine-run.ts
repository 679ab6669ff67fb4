/**
 * Runs a differential case in n8n's engine (test/engine/harness.ts: n8n-core in process), the
 * Resilient node with a virtual runtime and a fresh memory store; the workflows, the observation
 * and the comparison are harness.ts's, shared with the real-n8n sample (test/e2e/differential.e2e.mjs).
 */
import type { INode } from 'n8n-workflow';
import { ResilientHttpRequest } from '../../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { runWorkflow, type WorkflowRunResult } from '../harness';
import { createVirtualRuntime } from '../virtual-runtime';
import { ITEMS_SOURCE, itemsSource, RESILIENT_HTTP } from '../workflow-builders';
import { caseWorkflow, compare, isRefusal, itemsOf, nodesOf, observe, refused, substitute, type DiffCase, type Observation, type RunPair } from './harness';
import type { DiffServer } from './server';

/** What a run needs of a case: its server's answers, the items and the credentials. */
export type RunnableCase = Pick<DiffCase, 'handler' | 'items' | 'credentials'>;
/** The two nodes a case compares, its URLs substituted. */
type NodesOf<C> = (c: C, base: string, other: string) => { reference: INode; resilient: INode };

async function runOnce(node: INode, c: RunnableCase, base: string, other: string): Promise<WorkflowRunResult> {
	return await runWorkflow(caseWorkflow(node, { type: ITEMS_SOURCE, typeVersion: 1, parameters: {} }), {
		nodeTypes: { [RESILIENT_HTTP]: new ResilientHttpRequest(createVirtualRuntime(), new MemoryStateStore()), [ITEMS_SOURCE]: itemsSource(itemsOf(c, base, other)) },
		// a credential's URLs (OAuth2's token URL) point at the case's server, as the real-n8n runner stores them
		...(c.credentials ? { credentials: substitute(c.credentials, base, other) } : {}),
	});
}

/**
 * Runs the case with HTTP Request, then with the Resilient node, and compares. The nodes are the
 * same JSON with the type changed, or what `nodesFor` builds (the migrate command's result for an
 * HTTP Request v1 or v2 node: legacy.test.ts).
 */
export async function runCase<C extends RunnableCase = DiffCase>(c: C, server: DiffServer, id: string, nodesFor: NodesOf<C> = nodesOf as unknown as NodesOf<C>): Promise<RunPair> {
	const { base, otherBase } = server.register(id, c.handler);
	try {
		const { reference, resilient } = nodesFor(c, base, otherBase);
		const observeRun = async (node: INode): Promise<Observation> => {
			server.reset(id);
			try {
				const run = await runOnce(node, c, base, otherBase);
				return observe({ status: run.status, error: run.error, runData: run.run.data.resultData.runData }, server.requestsOf(id));
			} catch (error) {
				if (!isRefusal(error)) throw error;
				return refused(error, server.requestsOf(id));
			}
		};
		return compare(await observeRun(reference), await observeRun(resilient), base, otherBase);
	} finally {
		server.unregister(id);
	}
}
