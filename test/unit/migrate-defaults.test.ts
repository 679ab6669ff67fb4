/**
 * The parameters whose default differs between HTTP Request and this node, derived from the
 * reference (n8n-nodes-base's HTTP Request v3 to v4.x, the description n8n 2.41.1 shows) and held
 * against cli/default-differences.ts, which the migrate command reads; and what the command does
 * with each: a node that never set one gets HTTP Request's value, so it sends what it sent. The
 * same for v1 and v2: their parameters and defaults, held against cli/legacy-defaults.ts.
 */
import { HttpRequestV1 } from 'n8n-nodes-base/dist/nodes/HttpRequest/V1/HttpRequestV1.node';
import { HttpRequestV2 } from 'n8n-nodes-base/dist/nodes/HttpRequest/V2/HttpRequestV2.node';
import { HttpRequestV3 } from 'n8n-nodes-base/dist/nodes/HttpRequest/V3/HttpRequestV3.node';
import type { INodeProperties, INodeTypeBaseDescription } from 'n8n-workflow';
import { CONDITION_DEFAULTS, DEFAULT_DIFFERENCES } from '../../cli/default-differences';
import { LEGACY_DEFAULTS, LEGACY_OPTION_DEFAULTS } from '../../cli/legacy-defaults';
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

describe('HTTP Request v1 and v2: every parameter and option, with its default, in cli/legacy-defaults.ts', () => {
	const legacy = [new HttpRequestV1(base).description.properties, new HttpRequestV2(base).description.properties];
	// the info notice is text in the panel, no parameter
	const parametersOf = (properties: INodeProperties[]) => properties.filter((p) => p.type !== 'notice');

	it.each([1, 2])('v%i: each parameter is listed with the default n8n-nodes-base gives it', (version) => {
		const listed = LEGACY_DEFAULTS as Record<string, unknown>;
		for (const property of parametersOf(legacy[version - 1])) expect([property.name, listed[property.name]]).toEqual([property.name, property.default]);
	});

	it('the list holds no parameter that neither version has', () => {
		const names = new Set(legacy.flatMap((properties) => parametersOf(properties).map((p) => p.name)));
		expect(Object.keys(LEGACY_DEFAULTS).filter((name) => !names.has(name))).toEqual([]);
	});

	it.each([1, 2])('v%i: each option is listed with the value it gets when added', (version) => {
		const options = legacy[version - 1].find((p) => p.name === 'options')?.options as INodeProperties[];
		expect(Object.fromEntries(options.map((o) => [o.name, o.default]))).toEqual(LEGACY_OPTION_DEFAULTS);
	});

	it("a v1 node that set nothing but its URL gets every value whose default differs here written out", () => {
		const { parameters } = migrateWorkflow({ nodes: [{ ...http({ url: 'https://api.example.com' }), typeVersion: 1 }], connections: {} }).workflow.nodes[0];
		// v1 answers as JSON (this node detects the format), follows redirects of GET and HEAD only, sends no credential
		expect(parameters).toEqual({ method: 'GET', url: 'https://api.example.com', authentication: 'none', options: { response: { response: { responseFormat: 'json' } }, redirect: { redirect: { followRedirects: true } } } });
		const post = migrateWorkflow({ nodes: [{ ...http({ requestMethod: 'POST', url: 'https://api.example.com' }), typeVersion: 2 }], connections: {} }).workflow.nodes[0].parameters;
		expect(post?.options).toMatchObject({ redirect: { redirect: { followRedirects: false } } });
	});
});
