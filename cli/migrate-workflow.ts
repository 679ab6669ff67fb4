/**
 * Rewrites an exported n8n workflow: each HTTP Request node (v3 to v4.x) becomes a Resilient HTTP
 * Request node (an HTTP Request Tool a Resilient HTTP Request Tool) with the same name, position,
 * parameters, credentials and settings (v1 and v2 first translated into v3's parameters that send
 * the same request, cli/legacy-http-request.ts); Retry On Fail is turned off and carried over (its tries
 * become Max Attempts, its wait Base Delay). What cannot be carried over keeps the node as it is,
 * with the reason; what behaves differently is noted. Pure: no files, no n8n.
 */
import { RETRY_DEFAULTS } from '../nodes/shared/core/defaults';
import { DEFAULT_DIFFERENCES, isShown } from './default-differences';
import { isGenericAuthType } from '../nodes/ResilientHttpRequest/auth/generic-auth-types';
import { PREDEFINED_CREDENTIAL_TYPES } from '../nodes/ResilientHttpRequest/auth/generated/predefined-credentials';
import { translateLegacyHttpRequest } from './legacy-http-request';

export const HTTP_REQUEST_TYPE = 'n8n-nodes-base.httpRequest';
export const RESILIENT_TYPE = 'n8n-nodes-resilient-http.resilientHttpRequest';
const RESILIENT_VERSION = 1;
/** HTTP Request as an AI agent's tool (n8n's tool variant of HTTP Request, same parameters plus the tool's): becomes ours. */
const HTTP_REQUEST_TOOL_TYPE = 'n8n-nodes-base.httpRequestTool';
export const RESILIENT_TOOL_TYPE = 'n8n-nodes-resilient-http.resilientHttpRequestTool';
/** The older LangChain HTTP Request Tool: other parameters (placeholders, a tool name), not migrated. */
const LANGCHAIN_TOOL_TYPE = '@n8n/n8n-nodes-langchain.toolHttpRequest';

type Json = Record<string, unknown>;

export interface WorkflowNode extends Json {
	name: string;
	type: string;
	typeVersion: number;
	parameters?: Json;
}

interface NodeReport {
	node: string;
	/** migrated: now a Resilient HTTP Request node; kept: left as it was, with the reasons. */
	action: 'migrated' | 'kept';
	/** What the command changed (migrated) or why it did not (kept). */
	changes: string[];
	/** Where the node behaves differently from before, and what to do about it. */
	notes: string[];
}

export interface MigrationResult {
	workflow: Json & { nodes: WorkflowNode[] };
	nodes: NodeReport[];
	/** Said once per workflow with a migrated node. */
	notes: string[];
}

const PREDEFINED = new Set(PREDEFINED_CREDENTIAL_TYPES.map((t) => t.name));

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isWorkflow(value: unknown): value is Json & { nodes: WorkflowNode[] } {
	return isObject(value) && Array.isArray(value.nodes) && isObject(value.connections);
}

/** Why the node must stay an HTTP Request node, if it must. */
function blockers(node: WorkflowNode): string[] {
	const found: string[] = [];
	const parameters = node.parameters ?? {};
	const authentication = parameters.authentication ?? 'none';
	if (authentication === 'predefinedCredentialType') {
		const type = parameters.nodeCredentialType;
		if (typeof type !== 'string' || type.startsWith('=') || !PREDEFINED.has(type)) {
			found.push(`the credential type ${JSON.stringify(type ?? '')} is not one Resilient HTTP Request offers (it offers the ${PREDEFINED.size} types HTTP Request offers in n8n 2.41.1)`);
		}
	} else if (authentication === 'genericCredentialType') {
		if (!isGenericAuthType(parameters.genericAuthType)) found.push(`the generic auth type ${JSON.stringify(parameters.genericAuthType ?? '')} is not one Resilient HTTP Request supports`);
	} else if (authentication !== 'none') {
		found.push(`Authentication ${JSON.stringify(authentication)} is not one Resilient HTTP Request supports`);
	}
	if (node.type === HTTP_REQUEST_TOOL_TYPE && parameters.optimizeResponse === true && (parameters.responseType ?? 'json') !== 'json') {
		found.push(`Optimize Response with Expected Response Type ${JSON.stringify(parameters.responseType)}: Resilient HTTP Request Tool optimizes JSON only (HTML and Text need parsers n8n does not lend to community nodes)`);
	}
	return found;
}

/** n8n's own reading of Retry On Fail (n8n-core 2.41.1, WorkflowExecute.getRetryParams): 2 to 5 tries, 0 to 5000 ms, 0 meaning 1000. */
function retryOnFailOf(node: WorkflowNode): { tries: number; waitMs: number } {
	const tries = Math.min(5, Math.max(2, Number(node.maxTries) || 3));
	const waitMs = Math.min(5000, Math.max(0, Number(node.waitBetweenTries) || 1000));
	return { tries, waitMs };
}

function duplicateQueryNames(parameters: Json): string[] {
	const entries = isObject(parameters.queryParameters) && Array.isArray(parameters.queryParameters.parameters) ? (parameters.queryParameters.parameters as Json[]) : [];
	const names = entries.map((e) => String(e.name ?? '')).filter(Boolean);
	return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}

/**
 * Writes HTTP Request's value into each parameter whose default differs here and that the node
 * never set (n8n saves only values that differ from the default); returns what it wrote.
 */
function carryHttpRequestDefaults(parameters: Json): string[] {
	const changes: string[] = [];
	for (const difference of DEFAULT_DIFFERENCES) {
		if (parameters[difference.name] !== undefined || !isShown(difference, parameters)) continue;
		parameters[difference.name] = difference.httpRequestDefault;
		changes.push(`${difference.displayName} set to ${JSON.stringify(difference.httpRequestDefault)}, the value HTTP Request used (this node's default is ${JSON.stringify(difference.resilientDefault)})`);
	}
	return changes;
}

/** What migrateNode adds for a v1 or v2 node: what its translation noted. */
interface LegacySource {
	notes: string[];
}

/** Retry On Fail turned off and carried into the retry parameters, or the note that retries start now. */
function carryRetryOnFail(node: WorkflowNode, migrated: WorkflowNode, parameters: Json, report: Pick<NodeReport, 'changes' | 'notes'>): void {
	if (node.retryOnFail !== true) {
		report.notes.push(`retries now: Max Attempts ${RETRY_DEFAULTS.maxAttempts} (the node's default) where the node made one attempt; set Max Attempts to 1 for none`);
		return;
	}
	const { tries, waitMs } = retryOnFailOf(node);
	delete migrated.retryOnFail;
	delete migrated.maxTries;
	delete migrated.waitBetweenTries;
	parameters.maxAttempts = tries;
	parameters.retryOptions = { ...(isObject(parameters.retryOptions) ? parameters.retryOptions : {}), baseDelay: waitMs };
	report.changes.push(`Retry On Fail turned off; its ${tries} tries became Max Attempts ${tries}, its wait of ${waitMs} ms Base Delay ${waitMs} ms (later waits double, with jitter, up to Max Delay)`);
}

function migrateNode(node: WorkflowNode, legacy?: LegacySource): { node: WorkflowNode; report: NodeReport } {
	const version = Number(node.typeVersion);
	const parameters: Json = structuredClone(node.parameters ?? {});
	const options: Json = isObject(parameters.options) ? parameters.options : {};
	const tool = node.type === HTTP_REQUEST_TOOL_TYPE;
	const type = tool ? RESILIENT_TOOL_TYPE : RESILIENT_TYPE;
	const changes: string[] = [`type ${node.type} v${version} -> ${type} v${RESILIENT_VERSION}`, ...carryHttpRequestDefaults(parameters)];
	const notes: string[] = [...(legacy?.notes ?? [])];
	if (legacy) changes.splice(1, 0, `parameters of HTTP Request v${version} written as their v3 equivalents, each value explicit (method, response format, redirects, body, headers, query)`);
	const migrated: WorkflowNode = { ...structuredClone(node), type, typeVersion: RESILIENT_VERSION, parameters };
	if (tool) notes.push('as a tool the model gets the same answer on success, and on failure a short account (status, attempts, the server\'s requested wait) instead of the error; rate limits are waited out inside the call up to Max Server-Requested Delay (1 min)');

	carryRetryOnFail(node, migrated, parameters, { changes, notes });

	// HTTP Request v3 follows no redirect unless told to; v4 and this node follow them by default
	const redirect = isObject(options.redirect) && isObject(options.redirect.redirect) ? options.redirect.redirect : undefined;
	if (version < 4 && redirect?.followRedirects === undefined) {
		options.redirect = { redirect: { ...(redirect ?? {}), followRedirects: false } };
		parameters.options = options;
		changes.push('Options > Redirects > Follow Redirects set to off, as HTTP Request v3 did by default');
	}
	if (version < 4.4 && (parameters.authentication ?? 'none') !== 'none' && options.sendCredentialsOnCrossOriginRedirect === undefined) {
		notes.push(`credentials no longer follow a redirect to another origin (HTTP Request before v4.4 sent them): set Options > Send Credentials on Cross-Origin Redirect to keep that`);
	}
	if (options.timeout !== undefined) {
		const timeout = Number(options.timeout);
		const retryOptions = isObject(parameters.retryOptions) ? parameters.retryOptions : {};
		const attemptTimeout = Number(retryOptions.attemptTimeout ?? RETRY_DEFAULTS.attemptTimeoutMs);
		if (Number.isFinite(timeout) && attemptTimeout > 0 && timeout > attemptTimeout) {
			parameters.retryOptions = { ...retryOptions, attemptTimeout: timeout };
			changes.push(`Attempt Timeout set to the node's Timeout, ${timeout} ms (each attempt must be allowed as long as one request was)`);
		}
	} else {
		notes.push(`each attempt is bounded by Attempt Timeout (${RETRY_DEFAULTS.attemptTimeoutMs / 1000} s) where HTTP Request waited up to ${legacy ? '1 hour' : '5 minutes'} for an answer: raise it for slow APIs (LLMs, reports)`);
	}
	const method = String(parameters.method ?? 'GET').toUpperCase();
	if ((method === 'POST' || method === 'PATCH') && parameters.idempotencyKeyMode === undefined) {
		notes.push(`${method} is retried only when it provably never reached the server or got a 429: set Idempotency Key (Generate, or From Expression with an id) if the API honours one`);
	}
	// v1 and v2 sent a repeated query name's every value, as v4.3 does
	if (version < 4.3 && !legacy) {
		const repeated = duplicateQueryNames(parameters);
		if (repeated.length > 0) notes.push(`query parameters named more than once (${repeated.join(', ')}) are all sent, where HTTP Request before v4.3 sent the last one only`);
	}
	const pace = batchingPace(options);
	if (pace) notes.push(`Batching (${pace.size} items every ${pace.intervalMs} ms) paces this execution only: if it keeps an API's rate limit, set Traffic Control > Rate Limit to ${pace.perSecond} per second instead, which holds for every execution and worker together, and turn Batching off`);
	const pagination = isObject(options.pagination) && isObject(options.pagination.pagination) ? options.pagination.pagination : undefined;
	if (pagination && (pagination.paginationMode ?? 'updateAParameterInEachRequest') !== 'off') {
		notes.push('pagination: each page is retried on its own; a page that finally fails sends the item to the error output with the pages fetched so far and where to resume (HTTP Request lost them), and a failed page never ends pagination as if it were the last one');
	}
	return { node: migrated, report: { node: node.name, action: 'migrated', changes, notes } };
}

/** The pace HTTP Request's Batching option sets, when it sets one (as HTTP Request reads it). */
function batchingPace(options: Json): { size: number; intervalMs: number; perSecond: number } | undefined {
	const batch = isObject(options.batching) && isObject(options.batching.batch) ? options.batching.batch : undefined;
	if (!batch) return undefined;
	const size = Math.max(1, Number(batch.batchSize ?? 50));
	const intervalMs = Number(batch.batchInterval ?? 1000);
	if (Number(batch.batchSize ?? 50) === -1 || !Number.isFinite(size) || !(intervalMs > 0)) return undefined;
	return { size, intervalMs, perSecond: Math.round(((size * 1000) / intervalMs) * 100) / 100 };
}

export function migrateWorkflow(workflow: Json & { nodes: WorkflowNode[] }): MigrationResult {
	const reports: NodeReport[] = [];
	const nodes = workflow.nodes.map((node) => {
		if (node.type === LANGCHAIN_TOOL_TYPE) {
			reports.push({ node: node.name, action: 'kept', changes: ["the LangChain HTTP Request Tool (v1, with placeholders) has other parameters: replace it by n8n's current HTTP Request Tool, then migrate"], notes: [] });
			return node;
		}
		if (node.type !== HTTP_REQUEST_TYPE && node.type !== HTTP_REQUEST_TOOL_TYPE) return node;
		const legacy = Number(node.typeVersion) < 3 ? translateLegacyHttpRequest(Number(node.typeVersion), node.parameters ?? {}) : undefined;
		const translated = legacy?.parameters ? { ...node, parameters: legacy.parameters } : node;
		const blocked = legacy && !legacy.parameters ? legacy.blockers.map((b) => `HTTP Request v${node.typeVersion}: ${b}`) : blockers(translated);
		if (blocked.length > 0) {
			reports.push({ node: node.name, action: 'kept', changes: blocked, notes: [] });
			return node;
		}
		const { node: migrated, report } = migrateNode(translated, legacy);
		reports.push(report);
		return migrated;
	});
	const migratedAny = reports.some((r) => r.action === 'migrated');
	const notes = migratedAny
		? ['the success items of a migrated node are as HTTP Request gives them; an item that fails carries its retry story in error._retry, and the output panel says how many items needed retries (Retry Options > Retry Story: On Every Item puts the story on every item)']
		: [];
	return { workflow: { ...workflow, nodes }, nodes: reports, notes };
}
