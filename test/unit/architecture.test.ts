/**
 * The shape of the source tree, checked: the policy core (nodes/shared/core) knows nothing of n8n,
 * of the state stores or of the nodes; the stores know nothing of the nodes; each node and
 * nodes/shared are folders in layers, and a module imports only its own layer, lower ones and
 * nodes/shared; and no module reaches itself through its imports (type-only imports included: a
 * cycle of types is still a knot a reader has to untie). The checkers are tested on small graphs
 * first, and on the real graph with an import planted, so that they can be seen to fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const REPO = path.join(__dirname, '../..');

type Graph = Map<string, string[]>;

/** Every import specifier of a TypeScript source: static, type-only, re-exports and dynamic imports. */
export function importSpecifiers(source: string): string[] {
	const found: string[] = [];
	for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]/g)) found.push(match[1]);
	for (const match of source.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) found.push(match[1]);
	for (const match of source.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1]);
	return found;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

/** Repository-relative paths of the modules a file imports; packages keep their name. */
function resolvedImports(file: string): string[] {
	return importSpecifiers(readFileSync(file, 'utf8')).map((spec) => {
		if (!spec.startsWith('.')) return spec;
		return path.relative(REPO, path.resolve(path.dirname(file), spec)).replace(/\\/g, '/') + '.ts';
	});
}

function sourceGraph(): Graph {
	const graph: Graph = new Map();
	for (const file of sourceFiles(path.join(REPO, 'nodes'))) graph.set(path.relative(REPO, file).replace(/\\/g, '/'), resolvedImports(file));
	return graph;
}

/** The import cycles of a graph, each as the path that closes it (first module repeated at the end). */
export function importCycles(graph: Graph): string[][] {
	const cycles: string[][] = [];
	const state = new Map<string, 'open' | 'done'>();
	const stack: string[] = [];
	const visit = (module: string) => {
		state.set(module, 'open');
		stack.push(module);
		for (const next of graph.get(module) ?? []) {
			if (!graph.has(next)) continue;
			if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
			else if (!state.has(next)) visit(next);
		}
		stack.pop();
		state.set(module, 'done');
	};
	for (const module of graph.keys()) if (!state.has(module)) visit(module);
	return cycles;
}

interface LayerRule {
	/** Modules under this folder... */
	under: string;
	/** ...may import nothing that matches one of these (folders or package names). */
	forbidden: RegExp[];
	why: string;
}

const RULES: LayerRule[] = [
	{
		under: 'nodes/shared/core/',
		forbidden: [/^n8n-/, /^ioredis$/, /^nodes\/shared\/state\//, /^nodes\/shared\/n8n\//, /^nodes\/ResilientHttpRequest\//, /^nodes\/BackoffDelay\//, /^nodes\/TrafficControl\//],
		why: 'the policy core is pure: no n8n, no store, no node (inject what it needs)',
	},
	{
		under: 'nodes/shared/state/',
		forbidden: [/^nodes\/shared\/n8n\//, /^nodes\/ResilientHttpRequest\//, /^nodes\/BackoffDelay\//, /^nodes\/TrafficControl\//],
		why: 'the stores keep state for the core; the nodes choose a store, never the other way round',
	},
	{
		under: 'nodes/shared/n8n/',
		forbidden: [/^nodes\/ResilientHttpRequest\//, /^nodes\/BackoffDelay\//, /^nodes\/TrafficControl\//],
		why: 'the n8n adapters the nodes share belong to no node',
	},
	{ under: 'nodes/BackoffDelay/', forbidden: [/^nodes\/ResilientHttpRequest\//, /^nodes\/TrafficControl\//], why: 'the nodes share code through nodes/shared only' },
	{ under: 'nodes/ResilientHttpRequest/', forbidden: [/^nodes\/BackoffDelay\//, /^nodes\/TrafficControl\//], why: 'the nodes share code through nodes/shared only' },
	{ under: 'nodes/TrafficControl/', forbidden: [/^nodes\/ResilientHttpRequest\//, /^nodes\/BackoffDelay\//], why: 'the nodes share code through nodes/shared only' },
];

/** One line per import that breaks a layer rule. */
export function layerViolations(graph: Graph, rules: LayerRule[]): string[] {
	const violations: string[] = [];
	for (const [module, imports] of graph) {
		for (const rule of rules) {
			if (!module.startsWith(rule.under)) continue;
			for (const imported of imports) {
				if (rule.forbidden.some((pattern) => pattern.test(imported))) violations.push(`${module} imports ${imported}: ${rule.why}`);
			}
		}
	}
	return violations;
}

/**
 * A folder of the tree in layers, lowest first. A layer is a folder (`auth/`) or a file of the
 * folder's own root (`types.ts`); '' is every other file of that root: for a node, its composition
 * (the .node.ts file, execute.ts and what they run), on top.
 */
interface Layered {
	root: string;
	order: readonly string[];
}

/** The order as the report names it: "nodes/shared/: core/ < core/traffic/ < state/ < n8n/". */
function orderOf(area: Layered): string {
	return `${area.root}: ${area.order.map((layer) => layer || 'the rest of the root').join(' < ')}`;
}

const SHARED: Layered = {
	root: 'nodes/shared/',
	order: ['core/', 'core/traffic/', 'state/', 'n8n/'],
};

/**
 * Every layered folder. ResilientHttpRequest: the types several folders share; which credential
 * signs a request; the request on the wire; the parameters as the editor shows them; one read of an
 * item's parameters; the API's traffic controller; what leaves the node; pages; polling; then the
 * composition (execute.ts, run-plan.ts, process-item.ts, send-with-retries.ts). A new file goes into
 * the folder of its job; it may import that folder, the ones before it and nodes/shared.
 */
const LAYERED: Layered[] = [
	SHARED,
	{
		root: 'nodes/ResilientHttpRequest/',
		order: ['types.ts', 'auth/', 'transport/', 'descriptions/', 'config/', 'traffic/', 'output/', 'pagination/', 'polling/', ''],
	},
	{ root: 'nodes/BackoffDelay/', order: ['loop-state.ts', 'description.ts', 'execute.ts', ''] },
	{ root: 'nodes/TrafficControl/', order: ['guard/', 'description.ts', 'api-filter.ts', 'no-api.ts', 'get-metrics.ts', 'execute.ts', ''] },
];

/** The layer of a module of `area` (its index in the order), or undefined when the order has no place for it. */
function layerOf(area: Layered, module: string): number | undefined {
	const inside = module.slice(area.root.length);
	if (!inside.includes('/')) {
		const file = area.order.indexOf(inside);
		const rest = area.order.indexOf('');
		if (file >= 0) return file;
		return rest >= 0 ? rest : undefined;
	}
	const folders = area.order.filter((entry) => entry.endsWith('/') && inside.startsWith(entry));
	if (folders.length === 0) return undefined;
	// core/traffic/ is its own layer above core/: the longest folder wins
	return area.order.indexOf(folders.reduce((a, b) => (b.length > a.length ? b : a)));
}

/**
 * One line per import that runs up a layer, reaches into another node, or leaves the shared area
 * for a node; and one per module that no layer holds (a new folder must be given its place).
 */
export function layerOrderViolations(graph: Graph, areas: readonly Layered[], shared: Layered): string[] {
	const areaOf = (module: string) => areas.find((area) => module.startsWith(area.root));
	const violations: string[] = [];
	for (const [module, imports] of graph) {
		const area = areaOf(module);
		if (!area) continue;
		const layer = layerOf(area, module);
		if (layer === undefined) {
			violations.push(`${module} is in no layer of ${orderOf(area)}`);
			continue;
		}
		for (const imported of imports) {
			const target = areaOf(imported);
			if (!target) continue;
			if (target !== area) {
				if (target !== shared) violations.push(`${module} imports ${imported}: a module imports its own node and nodes/shared only`);
				continue;
			}
			const above = layerOf(area, imported);
			if (above !== undefined && above > layer) violations.push(`${module} imports ${imported}, a higher layer (${orderOf(area)})`);
		}
	}
	return violations;
}

describe('the checker', () => {
	it('reads every form of import', () => {
		const source = [
			"import type { A } from './a';",
			"import { B,\n  C } from '../b';",
			"export { D } from './d';",
			"import './side-effect';",
			"const e = await import('./e');",
			"const f = require('ioredis');",
			"// the word import from './not-a-module' in prose after code: still read",
		].join('\n');
		expect(importSpecifiers(source)).toEqual(expect.arrayContaining(['./a', '../b', './d', './side-effect', './e', 'ioredis']));
	});

	it('finds a cycle, and only where there is one', () => {
		const acyclic: Graph = new Map([['a', ['b']], ['b', ['c']], ['c', []]]);
		expect(importCycles(acyclic)).toEqual([]);
		const cyclic: Graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]);
		expect(importCycles(cyclic)).toEqual([['a', 'b', 'c', 'a']]);
	});

	it('finds an import that crosses a layer', () => {
		const graph: Graph = new Map([
			['nodes/shared/core/x.ts', ['nodes/shared/core/y.ts', 'n8n-workflow']],
			['nodes/shared/core/y.ts', ['nodes/shared/state/memory-store.ts']],
		]);
		expect(layerViolations(graph, RULES)).toEqual([
			expect.stringContaining('nodes/shared/core/x.ts imports n8n-workflow'),
			expect.stringContaining('nodes/shared/core/y.ts imports nodes/shared/state/memory-store.ts'),
		]);
	});

	it('finds an import that runs up the layers, into another node, or from a folder without a layer', () => {
		const node: Layered = { root: 'nodes/N/', order: ['types.ts', 'low/', 'high/', ''] };
		const shared: Layered = { root: 'nodes/shared/', order: ['core/', 'n8n/'] };
		const other: Layered = { root: 'nodes/M/', order: [''] };
		const graph: Graph = new Map([
			['nodes/N/types.ts', []],
			['nodes/N/low/a.ts', ['nodes/N/types.ts', 'nodes/N/low/b.ts', 'nodes/shared/n8n/x.ts', 'n8n-workflow']],
			['nodes/N/low/b.ts', ['nodes/N/high/c.ts']],
			['nodes/N/high/c.ts', ['nodes/N/low/a.ts', 'nodes/M/m.ts']],
			['nodes/N/run.ts', ['nodes/N/high/c.ts', 'nodes/N/types.ts']],
			['nodes/N/new/d.ts', []],
			['nodes/shared/core/e.ts', ['nodes/shared/n8n/x.ts']],
			['nodes/shared/n8n/x.ts', ['nodes/shared/core/e.ts', 'nodes/N/types.ts']],
			['nodes/M/m.ts', []],
		]);
		expect(layerOrderViolations(graph, [shared, node, other], shared)).toEqual([
			expect.stringContaining('nodes/N/low/b.ts imports nodes/N/high/c.ts, a higher layer'),
			expect.stringContaining('nodes/N/high/c.ts imports nodes/M/m.ts: a module imports its own node and nodes/shared only'),
			'nodes/N/new/d.ts is in no layer of nodes/N/: types.ts < low/ < high/ < the rest of the root',
			expect.stringContaining('nodes/shared/core/e.ts imports nodes/shared/n8n/x.ts, a higher layer'),
			expect.stringContaining('nodes/shared/n8n/x.ts imports nodes/N/types.ts: a module imports its own node and nodes/shared only'),
		]);
	});

	it('sees an import planted in the real tree: up the layers, and the cycle it closes', () => {
		const [lowest, composition] = ['nodes/ResilientHttpRequest/types.ts', 'nodes/ResilientHttpRequest/send-with-retries.ts'];
		const planted: Graph = new Map(sourceGraph());
		planted.set(lowest, [...planted.get(lowest)!, composition]);
		expect(layerOrderViolations(planted, LAYERED, SHARED)).toEqual([expect.stringContaining(`${lowest} imports ${composition}, a higher layer`)]);
		// the composition imports types.ts, directly and through most folders: every cycle found runs through the planted import
		const cycles = importCycles(planted).map((cycle) => cycle.join(' -> '));
		expect(cycles).toContain(`${lowest} -> ${composition} -> ${lowest}`);
		expect(cycles.filter((cycle) => !cycle.includes(`${lowest} -> ${composition}`))).toEqual([]);
	});
});

describe('the source tree', () => {
	const graph = sourceGraph();

	it('is read whole (every relative import resolves to a source file)', () => {
		expect(graph.size).toBeGreaterThan(50);
		const unresolved = [...graph.values()].flat().filter((imported) => imported.startsWith('nodes/') && !graph.has(imported));
		expect(unresolved).toEqual([]);
	});

	it('has no node folder that the layer orders leave out', () => {
		const folders = readdirSync(path.join(REPO, 'nodes'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
		expect(folders.map((entry) => `nodes/${entry.name}/`).sort()).toEqual(LAYERED.map((area) => area.root).sort());
	});

	it('has no import cycle', () => {
		expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
	});

	it('keeps each layer to what it may import', () => {
		expect(layerViolations(graph, RULES)).toEqual([]);
	});

	it('keeps every node and nodes/shared in their layers', () => {
		expect(layerOrderViolations(graph, LAYERED, SHARED)).toEqual([]);
	});
});
