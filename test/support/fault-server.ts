/**
 * A local HTTP server on 127.0.0.1 that injects network faults, for the fault, accounting and load
 * tests. The path names the fault and the key (one key per item, so counters are per item):
 *
 *   /<fault>/<key>?times=N&...   the fault for the key's first N requests (default: every request),
 *                                then 200 JSON { key, attempt, method, echo }
 *
 * Faults:
 *   ok                 200 at once
 *   status             `status` (default 503) with a small JSON body (`pad`: plus that many bytes)
 *   large-status       `status` (default 503) with a body of `size` bytes (default 20 MB): text/html, or
 *                      a JSON object with `type=json`
 *   reset-before       destroys the socket as soon as the request line and headers arrived,
 *                      without reading the body
 *   reset-after-body   reads the whole body, then destroys the socket without answering
 *   cut-body           200 with content-length 1000, sends 100 bytes, destroys the socket
 *   hang               reads the body, never answers
 *   drip               200, then one byte every `every` ms (default 50) for as long as the socket lives
 *   redirect-loop      302 to itself
 *
 * `echo` is the request's JSON body, or the JSON in the `item` query parameter for a GET: the
 * accounting test compares it with the item that was sent.
 *
 * Also here: a TLS endpoint that resets every handshake, a TLS server with a self-signed
 * certificate made by `openssl` at test time, and a port where connections are refused.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const FAULTS = ['ok', 'status', 'large-status', 'reset-before', 'reset-after-body', 'cut-body', 'hang', 'drip', 'redirect-loop'] as const;
export type Fault = (typeof FAULTS)[number];

/** What the server did with one request. */
export type FaultOutcome = 'answered' | 'reset' | 'cut' | 'hung' | 'dripped' | 'redirected';

export interface FaultLogEntry {
	method: string;
	path: string;
	fault: string;
	key: string;
	/** 1-based count of requests for this key. */
	attempt: number;
	headers: IncomingHttpHeaders;
	/** The whole request body arrived (false when the socket was reset before reading it). */
	bodyReceived: boolean;
	bodyBytes: number;
	outcome: FaultOutcome;
	status?: number;
	/** The connection of this request is still open (a client that gave up must close it). */
	open: boolean;
}

export interface FaultServer {
	/** e.g. 'http://127.0.0.1:49152' (no trailing slash). */
	url: string;
	/** Every request whose headers arrived, in arrival order. */
	log: FaultLogEntry[];
	/** TCP connections accepted. */
	connections(): number;
	/** Log entries of one key. */
	requestsOf(key: string): FaultLogEntry[];
	close(): Promise<void>;
}

/** A server, its open sockets, and timers to stop on close. */
class Closer {
	readonly sockets = new Set<Socket>();
	readonly timers = new Set<NodeJS.Timeout>();
	accepted = 0;
	track(server: Server, event = 'connection'): void {
		server.on(event, (socket: Socket) => {
			this.accepted++;
			this.sockets.add(socket);
			socket.once('close', () => this.sockets.delete(socket));
		});
	}
	async close(server: Server): Promise<void> {
		for (const timer of this.timers) clearInterval(timer);
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
}

async function listen(server: Server): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	return (server.address() as AddressInfo).port;
}

const largeBodies = new Map<string, Buffer>();
/** One buffer per size and type, shared by all requests: the server itself must not grow the heap. */
function largeBody(size: number, type: 'html' | 'json'): Buffer {
	let body = largeBodies.get(`${type}:${size}`);
	if (!body) {
		if (type === 'html') body = Buffer.alloc(size, '<p>upstream error</p>\n');
		else {
			const head = '{"error":"upstream failed","dump":"';
			body = Buffer.alloc(Math.max(size, head.length + 2), 'x');
			body.write(head);
			body.write('"}', body.length - 2);
		}
		largeBodies.set(`${type}:${size}`, body);
	}
	return body;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
	res.end(text);
}

function echoOf(method: string, body: Buffer, query: URLSearchParams): unknown {
	const raw = method === 'GET' ? query.get('item') : body.toString('utf8');
	if (!raw) return undefined;
	try {
		return JSON.parse(raw) as unknown;
	} catch {
		return raw;
	}
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

export interface FaultServerOptions {
	/** Called when a request's headers arrived, before the fault acts: a test can sample memory there. */
	onRequest?: (entry: FaultLogEntry) => void;
}

export async function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
	const log: FaultLogEntry[] = [];
	const counts = new Map<string, number>();
	const closer = new Closer();

	const server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const [fault = '', key = ''] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
		const attempt = (counts.get(key) ?? 0) + 1;
		counts.set(key, attempt);
		const times = url.searchParams.has('times') ? Number(url.searchParams.get('times')) : Infinity;
		const active = attempt <= times ? fault : 'ok';
		const entry: FaultLogEntry = { method: req.method ?? '', path: url.pathname, fault, key, attempt, headers: req.headers, bodyReceived: false, bodyBytes: 0, outcome: 'answered', open: true };
		res.once('close', () => (entry.open = false));
		log.push(entry);
		options.onRequest?.(entry);

		if (active === 'reset-before') {
			entry.outcome = 'reset';
			req.socket.destroy();
			return;
		}
		void readBody(req).then((body) => {
			entry.bodyReceived = true;
			entry.bodyBytes = body.length;
			const status = Number(url.searchParams.get('status') ?? 503);
			switch (active) {
				case 'ok':
					entry.status = 200;
					return sendJson(res, 200, { key, attempt, method: req.method, echo: echoOf(req.method ?? '', body, url.searchParams) });
				case 'status':
					entry.status = status;
					return sendJson(res, status, { error: `injected ${status}`, key, attempt, ...(url.searchParams.has('pad') ? { pad: 'x'.repeat(Number(url.searchParams.get('pad'))) } : {}) });
				case 'large-status': {
					const type = url.searchParams.get('type') === 'json' ? 'json' : 'html';
					const payload = largeBody(Number(url.searchParams.get('size') ?? 20 * 1024 * 1024), type);
					entry.status = status;
					res.writeHead(status, { 'content-type': type === 'json' ? 'application/json' : 'text/html', 'content-length': payload.length });
					return res.end(payload);
				}
				case 'reset-after-body':
					entry.outcome = 'reset';
					return req.socket.destroy();
				case 'cut-body':
					entry.outcome = 'cut';
					res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
					// destroy once the first part is flushed: the client sees headers, then a broken body
					return res.write(`{"data":"${'x'.repeat(90)}`, () => req.socket.destroy());
				case 'hang':
					entry.outcome = 'hung';
					return;
				case 'drip': {
					entry.outcome = 'dripped';
					res.writeHead(200, { 'content-type': 'text/plain' });
					const timer = setInterval(() => {
						if (res.destroyed) {
							clearInterval(timer);
							closer.timers.delete(timer);
						} else res.write('x');
					}, Number(url.searchParams.get('every') ?? 50));
					closer.timers.add(timer);
					return;
				}
				case 'redirect-loop':
					entry.outcome = 'redirected';
					entry.status = 302;
					res.writeHead(302, { location: req.url ?? '/', 'content-length': 0 });
					return res.end();
				default:
					entry.status = 404;
					return sendJson(res, 404, { error: `no fault "${active}"` });
			}
		});
	});
	closer.track(server);
	const port = await listen(server);
	return {
		url: `http://127.0.0.1:${port}`,
		log,
		connections: () => closer.accepted,
		requestsOf: (key) => log.filter((e) => e.key === key),
		close: () => closer.close(server),
	};
}

export interface CountingEndpoint {
	url: string;
	/** TCP connections accepted (each one a handshake attempt). */
	connections(): number;
	close(): Promise<void>;
}

/**
 * Accepts TCP connections and ends each one when the TLS ClientHello arrives, before any
 * handshake: `close` with a FIN (the client says "disconnected before secure TLS connection was
 * established"), `reset` with a RST (the client only sees "read ECONNRESET").
 */
export async function startTlsResetServer(how: 'close' | 'reset'): Promise<CountingEndpoint> {
	const closer = new Closer();
	const server = createNetServer((socket) => {
		socket.once('data', () => (how === 'reset' ? socket.resetAndDestroy() : socket.destroy()));
	});
	closer.track(server);
	const port = await listen(server);
	return { url: `https://127.0.0.1:${port}`, connections: () => closer.accepted, close: () => closer.close(server) };
}

export interface SelfSignedTlsServer extends CountingEndpoint {
	/** Requests that got past the handshake. */
	requests(): number;
}

/** Whether `openssl` can make the test certificate; tests that need it are skipped otherwise. */
export const HAVE_OPENSSL = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

/** An HTTPS server whose certificate (made now, by openssl) no client trusts. */
export async function startSelfSignedTlsServer(): Promise<SelfSignedTlsServer> {
	const dir = mkdtempSync(path.join(tmpdir(), 'rh-fault-tls-'));
	try {
		const made = spawnSync(
			'openssl',
			['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
			{ encoding: 'utf8' },
		);
		if (made.status !== 0) throw new Error(`openssl could not make a test certificate: ${made.stderr}`);
		const key = readFileSync(path.join(dir, 'key.pem'));
		const cert = readFileSync(path.join(dir, 'cert.pem'));
		let requests = 0;
		const server = createHttpsServer({ key, cert }, (_req, res) => {
			requests++;
			sendJson(res, 200, { ok: true });
		});
		const closer = new Closer();
		closer.track(server);
		const port = await listen(server);
		return { url: `https://127.0.0.1:${port}`, connections: () => closer.accepted, requests: () => requests, close: () => closer.close(server) };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** A URL on 127.0.0.1 where nothing listens: connecting is refused at once. */
export async function refusedUrl(): Promise<string> {
	const server = createNetServer();
	const port = await listen(server);
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}`;
}
