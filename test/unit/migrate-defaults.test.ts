/**
 * The parameters whose default differs between HTTP Request and this node, derived from the
 * reference (n8n-nodes-base's HTTP Request v3 to v4.x, the description n8n 2.41.1 shows) and held
 * against cli/default-differences.ts, which the migrate command reads; and what the command does
 * with each: a node that never set one gets HTTP Request's value, so it sends what it sent.
 */
import { HttpRequestV3 } from 'n8n-nodes-base/dist/nodes/HttpRequest/V3/HttpRequestV3.node';
import type { INodeProperties, INodeTypeBaseDescription } from 'n8n-workflow';
import { CONDITION_DEFAULTS, DEFAULT_DIFFERENCES } from '../../cli/default-differences';
import { HTTP_REQUEST_TYPE, migrateWorkflow, type WorkflowNode } from '../../cli/migrate-workflow';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';

const base: INodeTypeBaseDescription = { displayName: 'HTTP Request', name: 'httpRequest', group: ['output'], description: '', defaultVersion: 4.2 };
const reference = new HttpRequestV3(base).description.properties;
const ours = new ResilientHttpRequest().description.properties;

/**
 * Differences that send the same: HTTP Request's multipart Body Parameters entry has no
 * `parameterType`, and its field's own default is `formData`, which this node's entry spells out.
 */
const SAME_IN_EFFECT = (name: string, referenceDefault: unknown, ourDefault: unknown) =>
	name === 'bodyParameters' &&
	JSON.stringify(ourDefault) === JSON.stringify({ parameters: [{ parameterType: 'formData', ...(referenceDefault as { parameters: object[] }).parameters[0] }] });

function derivedDifferences() {
	const found: { name: string; displayName: string; httpRequestDefault: unknown; resilientDefault: unknown; shownWhen: unknown }[] = [];
	for (const property of reference) {
		// a name declared more than once (Body Parameters, per content type) pairs by where it shows
		const named = ours.filter((p: INodeProperties) => p.name === property.name);
		const mine = named.length > 1 ? named.filter((p) => JSON.stringify(p.displayOptions?.show) === JSON.stringify(property.displayOptions?.show)) : named;
		if (mine.length === 0) continue; // a parameter the node does not offer: docs/parity.md says which and why
		const ourDefault = mine[0].default;
		if (JSON.stringify(ourDefault) === JSON.stringify(property.default) || SAME_IN_EFFECT(property.name, property.default, ourDefault)) continue;
		found.push({ name: property.name, displayName: property.displayName, httpRequestDefault: property.default, resilientDefault: ourDefault, shownWhen: property.displayOptions?.show });
	}
	return found;
}

test("cli/default-differences.ts lists exactly the parameters whose default differs from HTTP Request's", () => {
	const byName = <T extends { name: string }>(list: readonly T[]) => [...list].sort((a, b) => a.name.localeCompare(b.name));
	expect(byName(DEFAULT_DIFFERENCES)).toEqual(byName(derivedDifferences()));
});

test("the conditions' defaults are HTTP Request's", () => {
	for (const [name, value] of Object.entries(CONDITION_DEFAULTS)) {
		const found = reference.filter((p: INodeProperties) => p.name === name);
		expect(found.length).toBeGreaterThan(0);
		for (const property of found) expect([name, property.default]).toEqual([name, value]);
	}
});

const http = (parameters: Record<string, unknown>): WorkflowNode => ({ id: 'h', name: 'Send', type: HTTP_REQUEST_TYPE, typeVersion: 4.2, position: [0, 0], parameters });
const migrated = (parameters: Record<string, unknown>) => {
	const result = migrateWorkflow({ id: 'w', name: 'w', nodes: [http(parameters)], connections: {} });
	return { parameters: result.workflow.nodes[0].parameters, report: result.nodes[0] };
};

test("a raw body whose Content Type was left empty keeps HTTP Request's empty Content Type", () => {
	const { parameters, report } = migrated({ method: 'POST', url: 'https://api.example.com', sendBody: true, contentType: 'raw', body: 'hello' });
	expect(parameters?.rawContentType).toBe('');
	expect(report?.changes).toContain('Content Type set to "", the value HTTP Request used (this node\'s default is "text/plain")');
});

test('a binary body without Input Data Field Name keeps HTTP Request\'s empty field name', () => {
	expect(migrated({ method: 'POST', url: 'https://api.example.com', sendBody: true, contentType: 'binaryData' }).parameters?.inputDataFieldName).toBe('');
});

test('a value the node set is kept; a parameter HTTP Request does not show is not added', () => {
	expect(migrated({ method: 'POST', url: 'https://api.example.com', sendBody: true, contentType: 'raw', rawContentType: 'text/csv' }).parameters?.rawContentType).toBe('text/csv');
	const json = migrated({ method: 'POST', url: 'https://api.example.com', sendBody: true, specifyBody: 'json', jsonBody: '{}' }).parameters ?? {};
	expect(Object.keys(json).filter((name) => DEFAULT_DIFFERENCES.some((d) => d.name === name))).toEqual([]);
	const plain = migrated({ method: 'GET', url: 'https://api.example.com' }).parameters ?? {};
	expect(Object.keys(plain).sort()).toEqual(['method', 'url']);
});
