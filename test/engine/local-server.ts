/**
 * A real HTTP server on 127.0.0.1 for scenarios nock cannot express: a connection dropped after
 * the server has processed a POST, a server that never answers, exact arrival times of retries.
 *
 *   const server = await startLocalServer((req, index) =>
 *     index === 0 ? { drop: true } : { status: 200, body: { ok: true } });
 *   ... run a workflow against `${server.url}/orders` ...
 *   expect(server.requests).toHaveLength(2);
 *   await server.close();
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
	method: string;
	/** Path and query, e.g. '/orders?x=1'. */
	url: string;
	headers: IncomingHttpHeaders;
	/** Header names and values as sent, in their case (`headers` has them lowercased). */
	rawHeaders: string[];
	/** Raw body as UTF-8 text ('' when there is none). */
	body: string;
	/** When the request line and headers arrived, from the server's clock (ms). */
	receivedAt: number;
}

export interface LocalResponse {
	status?: number;
	/** The reason phrase (a server may put anything there, an echo of the request too). */
	statusText?: string;
	headers?: Record<string, string>;
	/** Objects are sent as JSON with content-type application/json. */
	body?: string | Buffer | object;
	/** Wait this long before answering (the socket stays open meanwhile). */
	delayMs?: number;
}

/** `drop`: destroy the socket without answering (after the request was read); `hang`: never answer. */
export type LocalHandlerResult = LocalResponse | { drop: true } | { hang: true };

/** Gets each request after its body was fully read, with its 0-based arrival index. */
export type LocalHandler = (request: RecordedRequest, index: number) => LocalHandlerResult | Promise<LocalHandlerResult>;

export interface LocalServerOptions {
	/** Source of `receivedAt`; inject a fake clock to assert on backoff delays. */
	clock?: () => number;
}

export interface LocalServer {
	/** e.g. 'http://127.0.0.1:49152' (no trailing slash). */
	url: string;
	port: number;
	/** Every request received so far, in arrival order. */
	requests: RecordedRequest[];
	/** Destroys open sockets (including hanging ones) and stops listening. */
	close(): Promise<void>;
}

export async function startLocalServer(handler: LocalHandler, options: LocalServerOptions = {}): Promise<LocalServer> {
	const clock = options.clock ?? Date.now;
	const requests: RecordedRequest[] = [];
	const sockets = new Set<Socket>();
	const delays = new Set<() => void>();

	const server = createServer((req, res) => {
		const receivedAt = clock();
		void readBody(req).then(async (body) => {
			const recorded: RecordedRequest = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				rawHeaders: req.rawHeaders,
				body,
				receivedAt,
			};
			const index = requests.push(recorded) - 1;
			await answer(res, await handler(recorded, index), delays);
		}).catch((error: unknown) => {
			// A throwing handler is a test bug: make it visible as a 500 rather than a hang.
			if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
			res.end(`local-server handler failed: ${String(error)}`);
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}`,
		port,
		requests,
		close: async () => {
			for (const endDelay of delays) endDelay();
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

async function answer(res: ServerResponse, result: LocalHandlerResult, delays: Set<() => void>): Promise<void> {
	if ('drop' in result) {
		res.socket?.destroy();
		return;
	}
	if ('hang' in result) return;
	if (result.delayMs) await sleep(result.delayMs, delays);
	if (res.destroyed || !res.socket || res.socket.destroyed) return;
	const { status = 200, statusText, headers = {}, body } = result;
	const isJson = body !== undefined && typeof body === 'object' && !Buffer.isBuffer(body);
	const payload = isJson ? JSON.stringify(body) : body;
	const allHeaders = isJson ? { 'content-type': 'application/json', ...headers } : headers;
	if (statusText === undefined) res.writeHead(status, allHeaders);
	else res.writeHead(status, statusText, allHeaders);
	res.end(payload);
}

/** A sleep that close() ends early (the socket is gone by then, so nothing is written). */
async function sleep(ms: number, delays: Set<() => void>): Promise<void> {
	await new Promise<void>((resolve) => {
		const end = () => {
			clearTimeout(timer);
			delays.delete(end);
			resolve();
		};
		const timer = setTimeout(end, ms);
		delays.add(end);
	});
}
