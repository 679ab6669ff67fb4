/**
 * The node on an n8n older than the floor (README: n8n versions): its n8n-workflow lacks the
 * allowed-domains check. An item with a credential must fail with the node's own words, naming the
 * version it needs and the item, before anything is sent, not with n8n-workflow's missing export:
 * "assertUrlAllowed is not a function".
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

const node: INode = { id: 'n1', name: 'Call API', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [0, 0], parameters: {} };
const ctx = { getNode: () => node } as unknown as IExecuteFunctions;
const item = { authType: 'httpHeaderAuth', data: { name: 'X-Key', value: 'secret-value' }, url: 'https://api.example.com/x', node };

function checksWith(workflow: Record<string, unknown>): typeof import('../../nodes/ResilientHttpRequest/auth/credential-checks') {
	let loaded: typeof import('../../nodes/ResilientHttpRequest/auth/credential-checks') | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => ({ ...jest.requireActual('n8n-workflow'), ...workflow }));
		loaded = require('../../nodes/ResilientHttpRequest/auth/credential-checks');
	});
	jest.dontMock('n8n-workflow');
	return loaded!;
}

describe('an n8n older than the floor', () => {
	test.each([
		['assertUrlAllowed', { assertUrlAllowed: undefined }],
		['getCredentialAllowedDomains', { getCredentialAllowedDomains: undefined }],
	])('without %s: the item fails naming the n8n it needs and the item, never the secret', (_name, missing) => {
		const { checkCredential, OLDEST_N8N } = checksWith(missing);
		let thrown: unknown;
		try {
			checkCredential(ctx, 3, item);
		} catch (error) {
			thrown = error;
		}
		const error = thrown as { name: string; message: string; description: string; context: { itemIndex?: number } };
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toBe(`This n8n is too old for credentials in this node: update n8n to ${OLDEST_N8N} or later (item 3)`);
		expect(error.description).toContain("It cannot check a credential's Allowed HTTP Request Domains, which n8n 2.22.6 added");
		expect(error.description).toContain('Nothing was sent for item 3');
		expect(JSON.stringify(error)).not.toContain('secret-value');
	});

	test('with both (this n8n): the credential passes the check', () => {
		const { checkCredential } = checksWith({});
		expect(() => checkCredential(ctx, 0, item)).not.toThrow();
	});
});
