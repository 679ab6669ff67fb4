/**
 * HTTP Request's "view the raw requests in your browser's developer console": in a manual
 * execution every attempt reaches the editor's console (n8n's sendConsoleMessage push), secrets
 * hidden; in other modes nothing is sent.
 */
import type { IDataObject } from 'n8n-workflow';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();
const SECRET = 'sk_console_secret_1';

async function runWith(mode: 'manual' | 'trigger') {
	const api = await server((_req, index) => (index === 0 ? { status: 503 } : { status: 200, body: { ok: true } }));
	const messages: IDataObject[] = [];
	const wf = httpWorkflow(
		{ method: 'POST', url: `${api.url}/orders`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', sendHeaders: true, headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${SECRET}` }] }, sendBody: true, bodyParameters: { parameters: [{ name: 'id', value: 'o-1' }] }, idempotencyKeyMode: 'generate' },
		{ credentials: { httpHeaderAuth: { id: '1', name: 'c' } } },
	);
	const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), {
		mode,
		triggerItems: [{ json: {} }],
		credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: SECRET } },
		sendDataToUI: (type, data) => {
			if (type === 'sendConsoleMessage') messages.push(...((data as { messages: IDataObject[] }).messages ?? []));
		},
	});
	return { run, api, messages };
}

describe('each attempt in the browser console', () => {
	it('a manual execution sends every attempt as it went out and how it ended, without any secret', async () => {
		const { run, api, messages } = await runWith('manual');
		expect(run.status).toBe('success');
		expect(api.requests).toHaveLength(2);
		expect(messages.map((m) => [m.attempt, m.method, m.status])).toEqual([
			[1, 'POST', 503],
			[2, 'POST', 200],
		]);
		expect(messages[0]).toMatchObject({ item: 0, uri: `${api.url}/orders`, body: '{"id":"o-1"}', headers: { authorization: '[redacted]', 'content-type': 'application/json' } });
		const sentKey = Object.entries(messages[0].headers as IDataObject).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
		expect(sentKey).toBe(api.requests[0].headers['idempotency-key']);
		expect(JSON.stringify(messages)).not.toContain(SECRET);
	});

	it('other modes send nothing', async () => {
		const { run, messages } = await runWith('trigger');
		expect(run.status).toBe('success');
		expect(messages).toEqual([]);
	});
});
