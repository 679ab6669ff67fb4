/**
 * Lazy loading of n8n-nodes-base node and credential classes.
 *
 * n8n itself loads this package lazily from `dist/known/{nodes,credentials}.json` (type name ->
 * class name + file); we do the same so a test only pays for the few files it uses instead of
 * requiring hundreds of nodes.
 */
import type { ICredentialType, INodeType, IVersionedNodeType } from 'n8n-workflow';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const NODES_BASE_PREFIX = 'n8n-nodes-base.';

interface KnownEntry {
	className: string;
	sourcePath: string;
	supportedNodes?: string[];
}

type KnownIndex = Record<string, KnownEntry | undefined>;

const packageDir = path.dirname(require.resolve('n8n-nodes-base/package.json'));

/**
 * Leaf libraries some core nodes require that ship ESM only. Node >= 20.19 can require() ESM, but
 * Jest's CommonJS module registry cannot ("Cannot use import statement outside a module"). The
 * Wait node hits this: Wait -> Form utils -> sanitize-html -> htmlparser2 (ESM).
 */
const ESM_ONLY_LEAF_MODULES = ['sanitize-html'];

/**
 * Serves those modules to Jest from Node's own loader. Safe because they are plain libraries
 * without n8n state: nothing breaks if Jest's registry and Node's hold different copies.
 */
function loadEsmOnlyLeavesNatively(): void {
	// Jest replaces `require('node:module')` (its createRequire returns Jest's require), hence
	// process.getBuiltinModule (Node >= 20.16) to reach the real one. Without it the Wait node
	// cannot load under Jest; everything else still works.
	if (typeof jest === 'undefined' || typeof process.getBuiltinModule !== 'function') return;
	const nativeRequire = process.getBuiltinModule('node:module').createRequire(__filename);
	for (const id of ESM_ONLY_LEAF_MODULES) {
		jest.mock(id, () => nativeRequire(id) as unknown);
	}
}

loadEsmOnlyLeavesNatively();

const knownCache = new Map<string, KnownIndex>();
const instanceCache = new Map<string, unknown>();

function readKnown(kind: 'nodes' | 'credentials'): KnownIndex {
	let index = knownCache.get(kind);
	if (!index) {
		const file = path.join(packageDir, 'dist', 'known', `${kind}.json`);
		index = JSON.parse(readFileSync(file, 'utf8')) as KnownIndex;
		knownCache.set(kind, index);
	}
	return index;
}

/** Instantiates the exported class once per test file; node/credential classes are stateless. */
function instantiate(entry: KnownEntry): unknown {
	const cached = instanceCache.get(entry.sourcePath);
	if (cached) return cached;
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy by design, see header
	const exported = require(path.join(packageDir, entry.sourcePath)) as Record<string, unknown>;
	const Class = exported[entry.className] as (new () => unknown) | undefined;
	if (typeof Class !== 'function') {
		throw new Error(`n8n-nodes-base: ${entry.sourcePath} does not export ${entry.className}`);
	}
	const instance = new Class();
	instanceCache.set(entry.sourcePath, instance);
	return instance;
}

/** `n8n-nodes-base.httpRequest` -> the HttpRequest (versioned) node, or undefined if unknown. */
export function loadBaseNodeType(type: string): INodeType | IVersionedNodeType | undefined {
	if (!type.startsWith(NODES_BASE_PREFIX)) return undefined;
	const entry = readKnown('nodes')[type.slice(NODES_BASE_PREFIX.length)];
	return entry ? (instantiate(entry) as INodeType | IVersionedNodeType) : undefined;
}

/** `httpHeaderAuth` -> the HttpHeaderAuth credential type, or undefined if unknown. */
export function loadBaseCredentialType(name: string): ICredentialType | undefined {
	const entry = readKnown('credentials')[name];
	return entry ? (instantiate(entry) as ICredentialType) : undefined;
}

/** Full node type names a base credential is restricted to (only matters with restrictToSupportedNodes). */
export function baseCredentialSupportedNodes(name: string): string[] {
	const nodes = readKnown('credentials')[name]?.supportedNodes ?? [];
	return nodes.map((node) => `${NODES_BASE_PREFIX}${node}`);
}
