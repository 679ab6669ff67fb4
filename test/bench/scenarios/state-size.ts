/**
 * Scenario 6, state size: the in-memory store of budgets and breakers meets many distinct scopes
 * (a budget and a breaker each). Heap growth after a full GC, keys kept against the bound,
 * evictions; and the same without a bound that bites, for scale.
 */
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BREAKER_DEFAULTS } from '../../../nodes/shared/state/breaker';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/state/budget';
import { MemoryStateStore, MEMORY_STORE_DEFAULTS } from '../../../nodes/shared/state/memory-store';

export interface StateSizeSettings {
	scopes: number;
}

export interface StateSizeRow {
	name: string;
	scopes: number;
	/** Keys offered: one budget and one breaker per scope. */
	keysOffered: number;
	maxKeys: number;
	keysKept: number;
	evicted: number;
	heapGrowthBytes: number;
}

/** A full garbage collection: Jest does not expose `gc`, so switch it on and fetch it. */
function collectGarbage(): void {
	setFlagsFromString('--expose-gc');
	const gc = runInNewContext('gc') as () => void;
	gc();
	gc();
}

// Keys as the node makes them (guards.ts): a kind and a hashed scope
const hashed = (kind: string, scope: string) => `${kind}:${createHash('sha256').update(scope).digest('hex').slice(0, 32)}`;

async function fill(name: string, scopes: number, maxKeys: number): Promise<StateSizeRow> {
	collectGarbage();
	const before = process.memoryUsage().heapUsed;
	const store = new MemoryStateStore({ maxKeys });
	const now = Date.now();
	for (let s = 0; s < scopes; s++) {
		await store.recordFirstAttempt(hashed('budget', `scope:${s}`), now, BUDGET_DEFAULTS);
		await store.breakerRecord(hashed('breaker', `scope:${s}`), now, false, BREAKER_DEFAULTS);
	}
	collectGarbage();
	const heapGrowthBytes = process.memoryUsage().heapUsed - before;
	return { name, scopes, keysOffered: 2 * scopes, maxKeys, keysKept: store.size, evicted: 2 * scopes - store.size, heapGrowthBytes };
}

export async function runStateSize(settings: StateSizeSettings): Promise<StateSizeRow[]> {
	return [
		await fill(`default bound (${MEMORY_STORE_DEFAULTS.maxKeys} keys)`, settings.scopes, MEMORY_STORE_DEFAULTS.maxKeys),
		await fill('bound above the keys offered (for scale)', settings.scopes, 2 * settings.scopes),
	];
}
