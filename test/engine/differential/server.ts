/**
 * The differential suite's HTTP server: two listeners on 127.0.0.1 (two origins, for cross-origin
 * redirects and next URLs) sharing one route table. Every case owns the paths under `/c/<caseId>/`,
 * so cases run concurrently against the same server and each sees only its own requests.
 * Unlike test/engine/local-server.ts it records the body as bytes (multipart and binary uploads
 * are compared byte for byte) and can answer gzip-compressed or chunked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

export type Origin = 'main' | 'other';

export interface ReceivedRequest {
	origin: Origin;
	method: string;
	/** Path and query below the case's prefix, e.g. '/items?page=2'. */
	url: string;
	/** Header names as sent (their case) and values, in arrival order. */
	rawHeaders: Array<[string, string]>;
	body: Buffer;
}

/** What a case's route answers. An object body is sent as JSON (content-type application/json unless given). */
export interface CaseResponse {
	status?: number;
	headers?: Record<string, string>;
	body?: string | Buffer | object;
	/** Send the body gzip-compressed with content-encoding: gzip. */
	gzip?: boolean;
	/** Send the body in several writes with transfer-encoding: chunked (no content-length). */
	chunked?: boolean;
}

export interface RouteContext {
	request: ReceivedRequest;
	/** The case's base URLs on the two origins, e.g. 'http://127.0.0.1:40001/c/17'. */
	base: string;
	otherBase: string;
	/** Requests of this case so far (this one included). */
	count: number;
}

export type CaseHandler = (context: RouteContext) => CaseResponse;

export interface DiffServer {
	/** Registers a case's handler; returns its base URLs. */
	register(caseId: string, handler: CaseHandler): { base: string; otherBase: string };
	/** The requests a case received since the last reset, in arrival order. */
	requestsOf(caseId: string): ReceivedRequest[];
	reset(caseId: string): void;
	unregister(caseId: string): void;
	close(): Promise<void>;
}

export async function startDiffServer(): Promise<DiffServer> {
	const handlers = new Map<string, CaseHandler>();
	const received = new Map<string, ReceivedRequest[]>();
	const sockets = new Set<Socket>();
	const ports: Record<Origin, number> = { main: 0, other: 0 };
	const baseOf = (origin: Origin, caseId: string) => `http://127.0.0.1:${ports[origin]}/c/${caseId}`;

	const listener = (origin: Origin) => (req: IncomingMessage, res: ServerResponse) => {
		void readBody(req).then((body) => {
			const match = /^\/c\/([^/?]+)(.*)$/.exec(req.url ?? '');
			const handler = match ? handlers.get(match[1]) : undefined;
			if (!match || !handler) {
				res.writeHead(599, { 'content-type': 'text/plain' });
				res.end(`no case for ${req.url}`);
				return;
			}
			const [, caseId, rest] = match;
			const rawHeaders: Array<[string, string]> = [];
			for (let n = 0; n < req.rawHeaders.length; n += 2) rawHeaders.push([req.rawHeaders[n], req.rawHeaders[n + 1]]);
			const request: ReceivedRequest = { origin, method: req.method ?? '', url: rest || '/', rawHeaders, body };
			const list = received.get(caseId) ?? [];
			list.push(request);
			received.set(caseId, list);
			let response: CaseResponse;
			try {
				response = handler({ request, base: baseOf('main', caseId), otherBase: baseOf('other', caseId), count: list.length });
			} catch (error) {
				response = { status: 598, body: `handler failed: ${String(error)}` };
			}
			send(res, response);
		});
	};

	const servers: Server[] = [];
	for (const origin of ['main', 'other'] as const) {
		const server = createServer(listener(origin));
		server.keepAliveTimeout = 1000;
		server.on('connection', (socket) => {
			sockets.add(socket);
			socket.once('close', () => sockets.delete(socket));
		});
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(0, '127.0.0.1', () => resolve());
		});
		ports[origin] = (server.address() as AddressInfo).port;
		servers.push(server);
	}

	return {
		register(caseId, handler) {
			handlers.set(caseId, handler);
			received.set(caseId, []);
			return { base: baseOf('main', caseId), otherBase: baseOf('other', caseId) };
		},
		requestsOf: (caseId) => received.get(caseId) ?? [],
		reset: (caseId) => void received.set(caseId, []),
		unregister(caseId) {
			handlers.delete(caseId);
			received.delete(caseId);
		},
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
		},
	};
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

function send(res: ServerResponse, response: CaseResponse): void {
	const { status = 200, headers = {}, body, gzip = false, chunked = false } = response;
	const isJson = body !== undefined && typeof body === 'object' && !Buffer.isBuffer(body);
	let payload: Buffer = body === undefined ? Buffer.alloc(0) : isJson ? Buffer.from(JSON.stringify(body)) : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
	const all: Record<string, string> = { ...(isJson ? { 'content-type': 'application/json' } : {}), ...headers };
	if (gzip) {
		payload = gzipSync(payload);
		all['content-encoding'] = 'gzip';
	}
	if (!chunked) all['content-length'] = String(payload.length);
	res.writeHead(status, all);
	if (chunked && payload.length > 0) {
		const step = Math.max(1, Math.ceil(payload.length / 4));
		for (let at = 0; at < payload.length; at += step) res.write(payload.subarray(at, at + step));
		res.end();
	} else {
		res.end(payload);
	}
}
