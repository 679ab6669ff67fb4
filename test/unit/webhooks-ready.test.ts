/**
 * scripts/webhooks-ready.js, the check `npm start` and the e2e tests make before they call a
 * published webhook, against a local server that answers as n8n 2.41 does: readiness first, the
 * webhook registered later; a CORS preflight (OPTIONS with an Origin) answered 204 with the path's
 * registered methods, and every 404 of a webhook written to n8n's log as an error (as n8n 2.41's
 * WebhookRequestHandler does: the lines `npm start` must not print).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { webhooksOf, isRegistered, waitForWebhooks } = require('../../scripts/webhooks-ready.js') as {
	webhooksOf(workflow: unknown): Array<{ path: string; methods: string[] }>;
	isRegistered(baseUrl: string, hook: { path: string; methods: string[] }): Promise<boolean>;
	waitForWebhooks(baseUrl: string, hooks: Array<{ path: string; methods: string[] }>, options?: { alive?: () => boolean; intervalMs?: number; registerMs?: number }): Promise<void>;
};

interface FakeN8n {
	url: string;
	/** Paths whose webhook is registered, with its methods. */
	registered: Map<string, string[]>;
	ready: boolean;
	/** Requests that would have started an execution. */
	executions: string[];
	/** The error lines n8n would have logged. */
	logged: string[];
	close(): Promise<void>;
}

async function fakeN8n(): Promise<FakeN8n> {
	const state = { registered: new Map<string, string[]>(), ready: false, executions: [] as string[], logged: [] as string[] };
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://x');
		if (url.pathname === '/healthz/readiness') {
			res.writeHead(state.ready ? 200 : 503).end();
			return;
		}
		const path = url.pathname.replace(/^\/webhook\//, '');
		const methods = state.registered.get(path);
		const method = req.method ?? 'GET';
		res.setHeader('content-type', 'application/json');
		if (method === 'OPTIONS') {
			// setupCorsHeaders: the path's methods when the request has an Origin; then 204, nothing logged
			if (req.headers.origin) res.setHeader('access-control-allow-methods', ['OPTIONS', ...(methods ?? [])].join(', '));
			res.writeHead(204).end();
			return;
		}
		if (!methods || !methods.includes(method)) state.logged.push(`Received request for unknown webhook: ${method} ${path}`);
		if (!methods) {
			res.writeHead(404).end(JSON.stringify({ code: 404, message: `The requested webhook "${method} ${path}" is not registered.` }));
		} else if (!methods.includes(method)) {
			res.writeHead(404).end(JSON.stringify({ code: 404, message: `This webhook is not registered for ${method} requests. Did you mean to make a ${methods.join(' or ')} request?` }));
		} else {
			state.executions.push(`${method} ${path}`);
			res.writeHead(200).end(JSON.stringify({ message: 'Workflow was started' }));
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return Object.assign(state, { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

describe('webhooksOf', () => {
	it('reads the production webhooks of a workflow: path and methods, GET by default, disabled nodes left out', () => {
		const workflow = {
			nodes: [
				{ type: 'n8n-nodes-base.webhook', parameters: { httpMethod: 'POST', path: 'forward-events' } },
				{ type: 'n8n-nodes-base.webhook', parameters: { path: '/plain' } },
				{ type: 'n8n-nodes-base.webhook', parameters: { multipleMethods: true, httpMethod: ['PUT', 'DELETE'], path: 'both' } },
				{ type: 'n8n-nodes-base.webhook', disabled: true, parameters: { path: 'off' } },
				{ type: 'n8n-nodes-base.manualTrigger', parameters: {} },
			],
		};
		expect(webhooksOf(workflow)).toEqual([
			{ path: 'forward-events', methods: ['POST'] },
			{ path: 'plain', methods: ['GET'] },
			{ path: 'both', methods: ['PUT', 'DELETE'] },
		]);
	});

	it('finds the webhook of example 06, the one the README and docs/examples.md call', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		expect(webhooksOf(require('../../workflows/06-webhook-sender-dead-letter.json'))).toEqual([{ path: 'forward-events', methods: ['POST'] }]);
	});
});

describe('waiting for webhooks', () => {
	let n8n: FakeN8n;
	beforeEach(async () => {
		n8n = await fakeN8n();
	});
	afterEach(async () => {
		await n8n.close();
	});

	it('tells a registered webhook from one that is not, without starting an execution or a line in n8n\'s log', async () => {
		const hook = { path: 'forward-events', methods: ['POST'] };
		expect(await isRegistered(n8n.url, hook)).toBe(false);
		n8n.registered.set('forward-events', ['POST']);
		expect(await isRegistered(n8n.url, hook)).toBe(true);
		const getHook = { path: 'ask', methods: ['GET'] };
		n8n.registered.set('ask', ['GET']);
		expect(await isRegistered(n8n.url, getHook)).toBe(true);
		// a webhook registered for other methods only is not the one asked for
		expect(await isRegistered(n8n.url, { path: 'ask', methods: ['POST'] })).toBe(false);
		expect(n8n.executions).toEqual([]);
		expect(n8n.logged).toEqual([]);
	});

	it('resolves only once n8n is ready and every webhook is registered', async () => {
		const hooks = [{ path: 'a', methods: ['POST'] }, { path: 'b', methods: ['GET'] }];
		let settled = false;
		const waiting = waitForWebhooks(n8n.url, hooks, { intervalMs: 5 }).then(() => (settled = true));
		const asked = (count: number) => new Promise<void>((resolve) => setTimeout(resolve, count));
		n8n.registered.set('a', ['POST']);
		n8n.registered.set('b', ['GET']);
		await asked(30);
		expect(settled).toBe(false); // registered, but readiness still 503
		n8n.ready = true;
		await waiting;
		expect(settled).toBe(true);
		expect(n8n.executions).toEqual([]);
		expect(n8n.logged).toEqual([]);
	});

	it('names the webhooks still missing once n8n has been ready for the allowed time', async () => {
		n8n.ready = true;
		await expect(waitForWebhooks(n8n.url, [{ path: 'never', methods: ['POST'] }], { intervalMs: 5, registerMs: 20 })).rejects.toMatchObject({
			timedOut: true,
			message: expect.stringContaining('/webhook/never'),
		});
	});

	it('gives up when the process it watches is gone', async () => {
		await expect(waitForWebhooks(n8n.url, [], { alive: () => false })).rejects.toThrow(/stopped/);
	});
});
