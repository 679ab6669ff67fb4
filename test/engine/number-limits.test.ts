/**
 * Every number parameter of Resilient HTTP Request and Backoff Delay has the range the editor holds
 * it to (typeOptions minValue/maxValue), and the runtime refuses a value outside it, naming the
 * parameter (and, for the HTTP node, before any request): a workflow imported, written through
 * n8n's API or by an agent, or a value from an expression, is not held by the editor. Found from
 * the nodes' descriptions, so a number parameter added later is checked too.
 */
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';
import { BackoffDelay } from '../../nodes/BackoffDelay/BackoffDelay.node';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import type { WorkflowJson } from './harness';
import { BACKOFF_DELAY, httpWorkflow, ITEMS_SOURCE, runHttp } from './workflow-builders';

const server = useLocalServers();

interface NumberParameter {
	/** Where it sits in the node's parameters: collection and fixedCollection names, then its own. */
	path: string[];
	property: INodeProperties;
}

function numberParameters(properties: INodeProperties[], path: string[] = []): NumberParameter[] {
	return properties.flatMap((p): NumberParameter[] => {
		if (p.type === 'number') return [{ path: [...path, p.name], property: p }];
		if (p.type === 'collection') return numberParameters(p.options as INodeProperties[], [...path, p.name]);
		if (p.type === 'fixedCollection') return (p.options as Array<{ name: string; values: INodeProperties[] }>).flatMap((group) => numberParameters(group.values, [...path, p.name, group.name]));
		return [];
	});
}

/** What else a parameter needs to be read at all (pagination and polling are read only when on). */
const CONTEXT: Record<string, IDataObject> = {
	pagination: { options: { pagination: { pagination: { paginationMode: 'responseContainsNextURL', nextURL: '={{ $response.body.next }}', limitPagesFetched: true } } } },
	polling: { retryWhen: '={{ false }}' },
};
/** Backoff Delay reads the polling pace only when it loops for polling, which needs a deadline. */
const BACKOFF_CONTEXT = (path: string[]): IDataObject =>
	/^(pollInterval|pollGrowth|maxPollInterval)$/.test(path.at(-1)!) ? { loopFor: 'polling', options: { totalDeadline: 600_000 } } : {};
const contextOf = (path: string[]): IDataObject =>
	path.includes('pagination') ? CONTEXT.pagination : /^(pollInterval|pollGrowth|maxPollInterval)$/.test(path.at(-1)!) ? CONTEXT.polling : {};

/** `value` at `path`, merged into `base` (collections are objects of objects). */
function withValue(base: IDataObject, path: string[], value: number): IDataObject {
	const [head, ...rest] = path;
	if (rest.length === 0) return { ...base, [head]: value };
	return { ...base, [head]: withValue((base[head] ?? {}) as IDataObject, rest, value) };
}

/** Start -> Items -> Backoff Delay, its item a 503 from a request's error output: the node decides, and waits. */
function backoffWorkflow(parameters: IDataObject): WorkflowJson {
	return {
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'items', name: 'Items', type: ITEMS_SOURCE, typeVersion: 1, position: [100, 0], parameters: {} },
			{ id: 'backoff', name: 'Backoff', type: BACKOFF_DELAY, typeVersion: 1, position: [200, 0], parameters: parameters as INode['parameters'] },
		],
		connections: { Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] }, Items: { main: [[{ node: 'Backoff', type: 'main', index: 0 }]] } },
	};
}

const NODES = [
	{ node: 'Resilient HTTP Request', parameters: numberParameters(new ResilientHttpRequest().description.properties) },
	{ node: 'Backoff Delay', parameters: numberParameters(new BackoffDelay().description.properties) },
];

describe.each(NODES)('number parameters of $node', ({ node, parameters: PARAMETERS }) => {
	it('each has a minimum and a maximum in the editor', () => {
		const unbounded = PARAMETERS.filter(({ property }) => typeof property.typeOptions?.minValue !== 'number' || typeof property.typeOptions?.maxValue !== 'number').map(({ path }) => path.join('.'));
		expect(unbounded).toEqual([]);
	});

	const outOfRange = PARAMETERS.flatMap(({ path, property }) => {
		const { minValue, maxValue } = property.typeOptions as { minValue: number; maxValue: number };
		const step = property.typeOptions?.numberPrecision === 0 || Number.isInteger(minValue) ? 1 : 0.5;
		return [
			{ name: `${path.join('.')} = ${maxValue + step}`, path, property, value: maxValue + step },
			{ name: `${path.join('.')} = ${minValue - step}`, path, property, value: minValue - step },
		];
	});

	it.each(outOfRange)('$name is refused, naming the parameter', async ({ path, property, value }) => {
		const upstream = await server(() => ({ status: 200, body: { next: null } }));
		const run =
			node === 'Backoff Delay'
				? await runHttp(backoffWorkflow(withValue(BACKOFF_CONTEXT(path), path, value)), [{ json: { error: { status: 503, message: '503 - Service Unavailable' } } }], createVirtualRuntime())
				: await runHttp(httpWorkflow(withValue({ url: `${upstream.url}/x`, ...contextOf(path) }, path, value)), [{ json: {} }], createVirtualRuntime());
		expect(run.status).toBe('error');
		// named as the panel shows it, under its group where it has one ("Retry Options > Poll Interval (Ms)")
		expect(run.error?.message).toMatch(new RegExp(`^Parameter "([^"]+ > )?${property.displayName.replace(/[()]/g, '\\$&')}"`));
		expect(run.error?.message).toMatch(/must be (at least|at most|a whole number from|a number of milliseconds from)/);
		expect(run.error?.message).toContain(String(value));
		expect(upstream.requests).toHaveLength(0);
	});
});
