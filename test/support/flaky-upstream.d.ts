import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

export interface FlakyLogEntry {
	method: string;
	path: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: unknown;
	/** Epoch ms when the request arrived. */
	time: number;
	/** Ms since the server started. */
	t: number;
	scenario: string;
	key: string;
	/** 1-based count of requests for this scenario and key. */
	count: number;
	status: number | 'dropped' | 'hung' | undefined;
	processed?: boolean;
}

export interface ProcessedRequest {
	key: string;
	idempotencyKey?: string | string[];
	body: unknown;
	time: number;
}

export interface ScenarioContext {
	parts: string[];
	body: unknown;
	count: number;
	entry: FlakyLogEntry;
	json: (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) => void;
	query: Record<string, string>;
}

export interface FlakyServer {
	url: string;
	port: number;
	log: FlakyLogEntry[];
	/** Requests the drop-after-processing scenario acted upon (one per idempotency key). */
	processed: ProcessedRequest[];
	requests(prefix?: string): FlakyLogEntry[];
	close(): Promise<void>;
}

export interface FlakyServerOptions {
	/** 0 (default): a free port. */
	port?: number;
	host?: string;
	/** A key starts its script again after it answered 200 (the demo API). */
	cycle?: boolean;
	/** Called once a request was answered (or dropped, or left hanging). */
	onRequest?: (entry: FlakyLogEntry) => void;
	/** The clock /jobs runs on (Date.now by default; a test's virtual clock). */
	now?: () => number;
	/** The listen queue's length (Node's default: 511; the kernel caps it at net.core.somaxconn). */
	backlog?: number;
}

export function startFlakyServer(
	scenarios?: Record<string, (req: IncomingMessage, res: ServerResponse, ctx: ScenarioContext) => void>,
	options?: FlakyServerOptions,
): Promise<FlakyServer>;
