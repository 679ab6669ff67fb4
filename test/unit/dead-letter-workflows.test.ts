/**
 * Examples 06 and 07 read as JSON: what keeps their dead-letter table from filling up without
 * ever dropping an undelivered row. Their runs are proved in test/engine/workflows.test.ts and, in
 * a real n8n over a simulated week, in test/e2e/dead-letter-week.e2e.mjs; this test holds the
 * structure those runs rely on, so that an edit of the JSON that breaks it fails here first.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/doc-section';

interface WorkflowNode {
	name: string;
	type: string;
	position: [number, number];
	onError?: string;
	executeOnce?: boolean;
	parameters: Record<string, unknown>;
}
interface Workflow {
	nodes: WorkflowNode[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}
interface Condition {
	keyName: string;
	condition: string;
	keyValue: string;
}

const load = (file: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, 'workflows', file), 'utf8')) as Workflow;
const SENDER = load('06-webhook-sender-dead-letter.json');
const REPLAY = load('07-replay-dead-letters.json');
const DATA_TABLE = 'n8n-nodes-base.dataTable';

const nodeOf = (workflow: Workflow, name: string) => {
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node) throw new Error(`no node "${name}"`);
	return node;
};
const conditionsOf = (node: WorkflowNode) => (node.parameters.filters as { conditions: Condition[] }).conditions;
/** The nodes that feed `name`, each with the output index it comes from. */
const sourcesOf = (workflow: Workflow, name: string) =>
	Object.entries(workflow.connections).flatMap(([from, { main }]) => main.flatMap((targets, output) => (targets.some((t) => t.node === name) ? [{ from, output }] : [])));

describe('examples 06 and 07: a dead-letter table that does not fill up', () => {
	it('deletes a row only after its replay succeeded, and only the row this run claimed', () => {
		for (const workflow of [SENDER, REPLAY]) {
			const writers = workflow.nodes.filter((n) => n.type === DATA_TABLE);
			// no table delete or clear: rows leave one by one, by their filter
			expect(writers.filter((n) => n.parameters.resource === 'table' && n.parameters.operation !== 'create')).toEqual([]);
			for (const node of writers.filter((n) => n.parameters.operation === 'deleteRows')) {
				expect(sourcesOf(workflow, node.name)).toEqual([{ from: 'Replay event', output: 0 }]);
				expect(conditionsOf(node).map((c) => [c.keyName, c.condition])).toEqual([
					['id', 'eq'],
					['claimedBy', 'eq'],
				]);
				expect(conditionsOf(node)[1].keyValue).toBe('={{ $execution.id }}');
			}
		}
		expect(REPLAY.nodes.filter((n) => n.parameters.operation === 'deleteRows').map((n) => n.name)).toEqual(['Delete replayed row']);
	});

	it('splits due rows by keepDays (Config, 30 days) into replayed and expired: the same cutoff, one side each', () => {
		const keepDays = (nodeOf(REPLAY, 'Config').parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments.find((a) => a.name === 'keepDays');
		expect(keepDays?.value).toBe(30);
		const due = conditionsOf(nodeOf(REPLAY, 'Due rows'));
		const expire = conditionsOf(nodeOf(REPLAY, 'Expire old rows'));
		const cutoff = "={{ $now.minus({ days: $('Config').first().json.keepDays }).toISO() }}";
		expect(due).toEqual([
			{ keyName: 'retryAt', condition: 'lte', keyValue: '={{ $now.toISO() }}' },
			{ keyName: 'failedAt', condition: 'gt', keyValue: cutoff },
		]);
		expect(expire).toEqual([
			{ keyName: 'retryAt', condition: 'lte', keyValue: '={{ $now.toISO() }}' },
			{ keyName: 'failedAt', condition: 'lte', keyValue: cutoff },
		]);
		expect(nodeOf(REPLAY, 'Expire old rows').parameters.matchType).toBe('allConditions');
	});

	it('keeps an expired row (an update: an empty retryAt, reason "expired") and reports it by failing the execution once', () => {
		const expire = nodeOf(REPLAY, 'Expire old rows');
		expect(expire.parameters).toMatchObject({ resource: 'row', operation: 'update' });
		expect((expire.parameters.columns as { value: Record<string, string> }).value).toEqual({ retryAt: '={{ null }}', reason: 'expired', claimedBy: '' });
		expect(sourcesOf(REPLAY, 'Expire old rows')).toEqual([{ from: 'Dead-letter table', output: 0 }]);
		expect(REPLAY.connections['Expire old rows'].main).toEqual([[{ node: 'Report expired rows', type: 'main', index: 0 }]]);
		const report = nodeOf(REPLAY, 'Report expired rows');
		expect(report.type).toBe('n8n-nodes-base.stopAndError');
		expect(report.executeOnce).toBe(true);
		// below the replay's branch: n8n's execution order v1 runs the upper branch first, so the
		// report ends the run after the due rows were sent
		expect(nodeOf(REPLAY, 'Expire old rows').position[1]).toBeGreaterThan(Math.max(...['Due rows', 'Claim row', 'Replay event', 'Reschedule row'].map((n) => nodeOf(REPLAY, n).position[1])));
		expect((REPLAY as unknown as { settings: { executionOrder: string } }).settings.executionOrder).toBe('v1');
	});

	it("lets the sender's insert fail at n8n's cap (no error output): the execution keeps the event, and n8n's Retry writes it", () => {
		const keep = nodeOf(SENDER, 'Keep for replay');
		expect(keep.parameters).toMatchObject({ resource: 'row', operation: 'insert' });
		expect(keep.onError).toBeUndefined();
	});
});
