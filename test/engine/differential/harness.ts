/**
 * The differential harness: one case runs twice, once with n8n's HTTP Request at the case's
 * typeVersion and once with the same node JSON but
 * `type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1` (what a user does to drop
 * the node in), against the same local server (server.ts). Each run is reduced to what a downstream
 * node or the user can see (`Observation`), the two are compared path by path, and every difference
 * is either explained by a named deviation (deviations.ts) or reported as unexplained.
 *
 * This file is the part shared by the two runners, and imports nothing but types: the workflows of
 * a case, the observation of a run, the normalisation and the comparison. engine-run.ts runs a case
 * in n8n's engine (n8n-core in process); test/e2e/differential.e2e.mjs runs a sample of the cases
 * in a real n8n, with this file compiled by the repository's TypeScript.
 */
import { createHash } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IConnections, IDataObject, INode, INodeExecutionData, IRunData } from 'n8n-workflow';
import type { CaseHandler, ReceivedRequest } from './server';

export const HTTP_REQUEST = 'n8n-nodes-base.httpRequest';
export const RESILIENT_HTTP = 'n8n-nodes-resilient-http.resilientHttpRequest';
export type TypeVersion = 4 | 4.1 | 4.2 | 4.3 | 4.4;
export const TYPE_VERSIONS: readonly TypeVersion[] = [4, 4.1, 4.2, 4.3, 4.4];
export type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

/** Strings in parameters and items replaced by the case's base URL on the main / the other origin. */
export const BASE = '@BASE@';
export const OTHER = '@OTHER@';

export interface DiffCase {
	group: string;
	/** Unique within the group. */
	name: string;
	typeVersion: TypeVersion;
	/** HTTP Request's parameters as a user's workflow JSON holds them (BASE / OTHER placeholders in URLs). */
	parameters: IDataObject;
	onError?: OnError;
	/** Items fed into the HTTP node; default DEFAULT_ITEMS. */
	items?: INodeExecutionData[];
	/** Credential data by type; the node JSON gets a reference to each. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** The server's answers for this case. */
	handler: CaseHandler;
	/**
	 * Parameters given to the Resilient node only, to make the comparison fair without changing
	 * HTTP Request's parameters (e.g. maxAttempts: 1 where the error path would be retried).
	 * `note` says why.
	 */
	resilientOnly?: IDataObject;
	note?: string;
}

const text = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** One item with json and a binary with every metadata field, as a Read File node would emit it. */
export const DEFAULT_ITEMS: INodeExecutionData[] = [
	{
		json: { id: 7, name: 'Ada', tags: ['a', 'b'] },
		binary: { upload: { data: text('hello upload\n'), mimeType: 'text/plain', fileName: 'hello.txt', fileExtension: 'txt', fileSize: '13 B' } },
	},
];

/** Everything downstream can see of one run. */
export interface Observation {
	status: string;
	/** The execution's error (the workflow stopped on it). */
	executionError?: unknown;
	/** The error the HTTP node's run reports (also under onError continue, when the node threw). */
	nodeError?: unknown;
	/** Items per output index of the HTTP node. */
	outputs: unknown[][];
	/** Whether the nodes after each output ran. */
	downstream: { OK: number; Failed: number };
	/** What the server received. */
	requests: unknown[];
}

export interface Difference {
	path: string;
	reference: unknown;
	resilient: unknown;
}

export interface RunPair {
	reference: Observation;
	resilient: Observation;
	differences: Difference[];
}

export function substitute<T>(value: T, base: string, other: string): T {
	if (typeof value === 'string') return value.split(BASE).join(base).split(OTHER).join(other) as T;
	if (Array.isArray(value)) return value.map((v) => substitute(v, base, other)) as T;
	if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, base, other)])) as T;
	}
	return value;
}

/** The node that emits the case's items (itemsOf): each runner has its own kind. */
export type ItemsNode = Pick<INode, 'type' | 'typeVersion' | 'parameters'>;

/** Manual Trigger -> Items -> HTTP -> OK (output 0) / Failed (output 1). */
export function caseWorkflow(httpNode: INode, itemsNode: ItemsNode): { nodes: INode[]; connections: IConnections } {
	const noOp = (name: string, y: number): INode => ({ id: name, name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [600, y], parameters: {} });
	return {
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'items', name: 'Items', position: [200, 0], ...itemsNode },
			httpNode,
			noOp('OK', 0),
			noOp('Failed', 200),
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'HTTP', type: 'main', index: 0 }]] },
			HTTP: { main: [[{ node: 'OK', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
		},
	};
}

/** The user's HTTP Request node, and the same JSON with only type and typeVersion changed. */
/** n8n's HTTP Request node of a case (any version), its server URLs in place. */
export function referenceNodeOf(c: Pick<DiffCase, 'parameters' | 'onError' | 'credentials'> & { typeVersion: number }, base: string, other: string): INode {
	return {
		id: 'http',
		name: 'HTTP',
		type: HTTP_REQUEST,
		typeVersion: c.typeVersion,
		position: [400, 0],
		parameters: substitute(c.parameters, base, other) as INode['parameters'],
		...(c.onError && c.onError !== 'stopWorkflow' ? { onError: c.onError } : {}),
		...(c.credentials ? { credentials: Object.fromEntries(Object.keys(c.credentials).map((type) => [type, { id: `cred-${type}`, name: type }])) } : {}),
	};
}

export function nodesOf(c: DiffCase, base: string, other: string): { reference: INode; resilient: INode } {
	const parameters = substitute(c.parameters, base, other);
	const reference = referenceNodeOf(c, base, other);
	const resilient: INode = {
		...reference,
		type: RESILIENT_HTTP,
		typeVersion: 1,
		parameters: { ...parameters, ...(c.resilientOnly ?? {}) } as INode['parameters'],
	};
	return { reference, resilient };
}

/** The items fed into the HTTP node (DEFAULT_ITEMS unless the case has its own), URLs substituted. */
export function itemsOf(c: Pick<DiffCase, 'items'>, base: string, other: string): INodeExecutionData[] {
	return structuredClone(substitute(c.items ?? DEFAULT_ITEMS, base, other));
}

export const caseId = (c: Pick<DiffCase, 'group' | 'name'>) => `${c.group}/${c.name}`;

/** The two observations of a case normalised (normaliser) and compared (diff): what both runners judge. */
export function compare(reference: Observation, resilient: Observation, base: string, other: string): RunPair {
	const normalise = normaliser(base, other);
	const ref = normalise(reference) as Observation;
	const res = normalise(resilient) as Observation;
	return { reference: ref, resilient: res, differences: diff(ref, res) };
}

/** Whether n8n refused to start the workflow: a node has issues (a required parameter empty). */
export const isRefusal = (error: unknown): boolean =>
	(error as Error | undefined)?.name === 'WorkflowHasIssuesError' || String((error as Error | undefined)?.message).includes('has issues');

/** The observation of a run n8n refused to start. */
export function refused(error: unknown, requests: ReceivedRequest[]): Observation {
	return { status: 'refused', executionError: snapshot(error), outputs: [[], []], downstream: { OK: 0, Failed: 0 }, requests: requests.map(snapshotRequest) };
}

// ---------------------------------------------------------------------------------------------
// Observation: what downstream sees, as plain data

/** What observe reads of a finished run: its status, the execution's error and the run data. */
export interface RunView {
	status: string;
	error?: unknown;
	runData: IRunData;
}

export function observe(run: RunView, requests: ReceivedRequest[]): Observation {
	const task = run.runData.HTTP?.[0];
	const outputs = (task?.data?.main ?? []).map((items) => (items ?? []).map(snapshotItem));
	while (outputs.length < 2) outputs.push([]);
	return {
		status: run.status,
		...(run.error ? { executionError: snapshot(run.error) } : {}),
		...(task?.error ? { nodeError: snapshot(task.error) } : {}),
		outputs,
		downstream: { OK: run.runData.OK?.length ?? 0, Failed: run.runData.Failed?.length ?? 0 },
		requests: requests.map(snapshotRequest),
	};
}

function snapshotItem(item: INodeExecutionData): unknown {
	const out: Record<string, unknown> = { json: snapshot(item.json) };
	if (item.binary) {
		out.binary = Object.fromEntries(
			Object.entries(item.binary).map(([key, data]) => {
				const { data: base64, ...meta } = data;
				// inline binary data (the engine container keeps binary data in the item: no id)
				const bytes = data.id ? `<stored ${data.id}>` : Buffer.from(base64, 'base64');
				return [key, { ...(snapshot(meta) as object), bytes: bytesView(bytes) }];
			}),
		);
	}
	if (item.pairedItem !== undefined) out.pairedItem = snapshot(item.pairedItem);
	if (item.error !== undefined) out.error = snapshot(item.error);
	return out;
}

/** Text when the bytes are UTF-8 (so a diff reads), otherwise base64; long ones as length + hash. */
function bytesView(bytes: Buffer | string): unknown {
	if (typeof bytes === 'string') return bytes;
	const asText = bytes.toString('utf8');
	const view = Buffer.from(asText, 'utf8').equals(bytes) ? { text: asText } : { base64: bytes.toString('base64') };
	if (bytes.length > 4096) {
		return { length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
	}
	return view;
}

function snapshotRequest(r: ReceivedRequest): unknown {
	const headers: Record<string, string> = {};
	for (const [name, value] of r.rawHeaders) {
		const key = name.toLowerCase();
		headers[key] = headers[key] === undefined ? `${name}: ${value}` : `${headers[key]}, ${value}`;
	}
	const sorted = Object.fromEntries(Object.keys(headers).sort().map((k) => [k, headers[k]]));
	return { origin: r.origin, method: r.method, url: r.url, headers: sorted, body: bytesView(r.body) };
}

/**
 * A deep, plain copy of what an expression can read: own properties of objects (for errors the
 * non-enumerable ones too, and their class and name), Buffers as bytes, no functions or cycles.
 * An error's `node` (the node object: its type, typeVersion and parameter defaults differ by
 * construction) is reduced to its name.
 */
export function snapshot(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
	if (value === null || typeof value !== 'object') {
		if (typeof value === 'function') return '<function>';
		if (typeof value === 'bigint') return `${value}n`;
		return value;
	}
	if (Buffer.isBuffer(value)) return { buffer: bytesView(value) };
	if (value instanceof Date) return `<Date ${Number.isNaN(value.getTime()) ? 'invalid' : 'valid'}>`;
	if (seen.has(value)) return '<circular>';
	if (depth > 10) return '<too deep>';
	seen.add(value);
	try {
		if (Array.isArray(value)) return value.map((v) => snapshot(v, depth + 1, seen));
		const out: Record<string, unknown> = {};
		const isError = value instanceof Error;
		const proto = Object.getPrototypeOf(value) as object | null;
		const className = proto?.constructor?.name;
		if (isError) {
			out.__class = className;
			out.name = (value as Error).name;
			out.message = (value as Error).message;
		}
		// other classes (AxiosHeaders, IncomingMessage...) are compared by their own properties, as
		// jest's toEqual and a stored execution (JSON) see them
		const keys = isError ? Object.getOwnPropertyNames(value) : Object.keys(value);
		for (const key of keys.sort()) {
			if (key === 'stack') continue;
			const v = (value as Record<string, unknown>)[key];
			if (v === undefined) continue;
			if (key === 'node' && v && typeof v === 'object' && 'type' in v && 'parameters' in v) {
				out.node = { name: (v as INode).name };
				continue;
			}
			out[key] = snapshot(v, depth + 1, seen);
		}
		return out;
	} finally {
		seen.delete(value);
	}
}

// ---------------------------------------------------------------------------------------------
// Normalisation: only what is random per run

const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Replaces the case's base URLs (so results read the same whatever the ports), multipart
 * boundaries, the server's Date header, error timestamps (ms since epoch, under `timestamp`), and
 * the random parts of OAuth1 and Digest Authorization headers (nonce, timestamp, signature,
 * cnonce, response): nothing else.
 */
export function normaliser(base: string, other: string): (value: unknown) => unknown {
	const boundaries = new Set<string>();
	const collect = (value: unknown): void => {
		if (typeof value === 'string') {
			for (const m of value.matchAll(/boundary=([-\w'()+_,./:=?]+)/g)) boundaries.add(m[1].replace(/^"|"$/g, ''));
		} else if (Array.isArray(value)) value.forEach(collect);
		else if (value && typeof value === 'object') Object.values(value).forEach(collect);
	};
	const fix = (value: unknown, key: string | undefined): unknown => {
		// a multipart body with non-UTF-8 bytes (a PNG) is shown as base64: its boundaries replaced in the bytes
		if (typeof value === 'string' && key === 'base64' && boundaries.size > 0) {
			let bytes = Buffer.from(value, 'base64').toString('latin1');
			for (const b of boundaries) bytes = bytes.split(b).join('<boundary>');
			return Buffer.from(bytes, 'latin1').toString('base64');
		}
		if (typeof value === 'string') {
			let s = value.split(base).join('@BASE@').split(other).join('@OTHER@');
			for (const b of boundaries) s = s.split(b).join('<boundary>');
			s = s.replace(/\b(Date: )?[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\b/g, (_m, prefix: string | undefined) => `${prefix ?? ''}<http-date>`);
			// the ports in other spellings (host header, an error quoting host:port)
			const port = (u: string) => new URL(u).host;
			s = s.split(port(base)).join('<main-host>').split(port(other)).join('<other-host>');
			// OAuth1's nonce, timestamp and signature (the signature signs the nonce) and Digest's cnonce and response
			s = s.replace(/\b(oauth_nonce|oauth_timestamp|oauth_signature|cnonce|response)="[^"]*"/g, '$1="<random>"');
			if (HTTP_DATE.test(value)) return '<http-date>';
			return s;
		}
		if (typeof value === 'number' && key === 'timestamp' && value > 1e12) return '<timestamp>';
		if (Array.isArray(value)) return value.map((v) => fix(v, undefined));
		if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fix(v, k)]));
		return value;
	};
	return (value) => {
		collect(value);
		return fix(value, undefined);
	};
}

// ---------------------------------------------------------------------------------------------
// Comparison

const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every path where the two differ (leaves, and keys present on one side only). */
export function diff(reference: unknown, resilient: unknown, path = '', out: Difference[] = []): Difference[] {
	if (Array.isArray(reference) && Array.isArray(resilient)) {
		const n = Math.max(reference.length, resilient.length);
		for (let i = 0; i < n; i++) diff(reference[i], resilient[i], `${path}[${i}]`, out);
		return out;
	}
	if (isPlain(reference) && isPlain(resilient)) {
		const keys = new Set([...Object.keys(reference), ...Object.keys(resilient)]);
		for (const key of [...keys].sort()) diff(reference[key], resilient[key], path ? `${path}.${key}` : key, out);
		return out;
	}
	if (Object.is(reference, resilient)) return out;
	if (typeof reference === typeof resilient && JSON.stringify(reference) === JSON.stringify(resilient)) return out;
	out.push({ path, reference, resilient });
	return out;
}

/** Runs `work` over `items`, at most `size` at once, and gives the results in the items' order (the engine and the real-n8n suites both run cases so). */
export async function pool<T, R>(items: readonly T[], size: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
	const out: R[] = new Array(items.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(size, items.length) }, async () => {
			while (next < items.length) {
				const index = next++;
				out[index] = await work(items[index], index);
			}
		}),
	);
	return out;
}
