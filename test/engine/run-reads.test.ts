/**
 * What is the same for every item is read from n8n once per run, in n8n's own engine: each
 * getNodeParameter looks up the node type and walks the value, and each getNode() deep-copies the
 * whole node. Per item, only what may differ per item is read: a parameter with an expression.
 * Counted on n8n-core's execute context, for the request node only, at two numbers of items.
 */
import { ExecuteContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();

// every getNodeParameter of an execute context ends in _getNodeParameter (the public one is an own property)
type Counted = 'getNode' | '_getNodeParameter';

/** Calls of each method by the node named HTTP during one run of `items` items. */
async function readsOf(parameters: IDataObject, items: number, outcome: { failed?: boolean } = {}): Promise<Record<Counted, number>> {
	const counts: Record<Counted, number> = { getNode: 0, _getNodeParameter: 0 };
	const spies = (['getNode', '_getNodeParameter'] as const).map((method) => {
		const original = (ExecuteContext.prototype as unknown as Record<Counted, unknown>)[method] as (...args: unknown[]) => unknown;
		return jest.spyOn(ExecuteContext.prototype as unknown as Record<Counted, () => unknown>, method).mockImplementation(function (this: ExecuteContext, ...args: unknown[]) {
			if ((this as unknown as { node: { name: string } }).node.name === 'HTTP') counts[method]++;
			return original.apply(this, args);
		} as never);
	});
	try {
		const credentials = { httpHeaderAuth: { id: 'id-header', name: 'Header' } };
		const wf = httpWorkflow(parameters, { credentials, ...(outcome.failed ? { onError: 'continueErrorOutput' as const } : {}) });
		const result = await runHttp(wf, Array.from({ length: items }, (_, n) => ({ json: { n } })), createVirtualRuntime(), {
			credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'key-9d1e' } } as never,
			// not a manual run: there the editor's redaction reads the parameters of each failed item too
			mode: 'webhook',
		});
		expect(result.status).toBe('success');
		expect(result.jsonOf(outcome.failed ? 'Failed' : 'OK')).toHaveLength(items);
	} finally {
		for (const spy of spies) spy.mockRestore();
	}
	return counts;
}

describe('reads per run, not per item (n8n-core execute context, Header Auth credential)', () => {
	it('the node is copied a fixed number of times, and only the URL expression is read per item', async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const parameters = { url: `={{ '${api.url}/items/' + $json.n }}`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', retryOptions: { baseDelay: 10 } };
		const few = await readsOf(parameters, 3);
		const many = await readsOf(parameters, 30);
		expect(api.requests.map((r) => r.headers['x-api-key'])).toEqual(Array(33).fill('key-9d1e'));
		expect(many.getNode - few.getNode).toBe(0);
		expect((many._getNodeParameter - few._getNodeParameter) / 27).toBe(1);
	});

	// per failed item: one copy of the node, for its NodeApiError (HTTP Request 4.5 and later copy
	// it once too, for the error's details); the URL's expression read once: its redactor, which
	// reads the parameters after the item's config did, gets the value the config got
	it('a failed item on the error output costs one copy of the node and one read of the URL', async () => {
		const api = await server(() => ({ status: 400, body: { invalid: true } }));
		const parameters = { url: `={{ '${api.url}/items/' + $json.n }}`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' };
		const few = await readsOf(parameters, 3, { failed: true });
		const many = await readsOf(parameters, 30, { failed: true });
		expect(api.requests).toHaveLength(33);
		expect((many.getNode - few.getNode) / 27).toBe(1);
		expect((many._getNodeParameter - few._getNodeParameter) / 27).toBe(1);
	});
});
