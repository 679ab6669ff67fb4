/**
 * The shape of the source tree, checked: the policy core (nodes/shared/core) knows nothing of n8n,
 * of the state stores or of the nodes; the stores know nothing of the nodes; and no module reaches
 * itself through its imports (type-only imports included: a cycle of types is still a knot a reader
 * has to untie). The checker is tested on small graphs first, so that it can be seen to fail.
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
		forbidden: [/^n8n-/, /^ioredis$/, /^nodes\/shared\/state\//, /^nodes\/shared\/n8n\//, /^nodes\/ResilientHttpRequest\//, /^nodes\/BackoffDelay\//],
		why: 'the policy core is pure: no n8n, no store, no node (inject what it needs)',
	},
	{
		under: 'nodes/shared/state/',
		forbidden: [/^nodes\/shared\/n8n\//, /^nodes\/ResilientHttpRequest\//, /^nodes\/BackoffDelay\//],
		why: 'the stores keep state for the core; the nodes choose a store, never the other way round',
	},
	{
		under: 'nodes/shared/n8n/',
		forbidden: [/^nodes\/ResilientHttpRequest\//, /^nodes\/BackoffDelay\//],
		why: 'the n8n adapters both nodes share belong to neither node',
	},
	{ under: 'nodes/BackoffDelay/', forbidden: [/^nodes\/ResilientHttpRequest\//], why: 'the nodes share code through nodes/shared only' },
	{ under: 'nodes/ResilientHttpRequest/', forbidden: [/^nodes\/BackoffDelay\//], why: 'the nodes share code through nodes/shared only' },
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
});

describe('the source tree', () => {
	const graph = sourceGraph();

	it('is read whole (every relative import resolves to a source file)', () => {
		expect(graph.size).toBeGreaterThan(50);
		const unresolved = [...graph.values()].flat().filter((imported) => imported.startsWith('nodes/') && !graph.has(imported));
		expect(unresolved).toEqual([]);
	});

	it('has no import cycle', () => {
		expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
	});

	it('keeps each layer to what it may import', () => {
		expect(layerViolations(graph, RULES)).toEqual([]);
	});
});
