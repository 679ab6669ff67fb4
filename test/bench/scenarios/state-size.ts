/**
 * Scenario 7, state size: the in-memory store of the traffic controllers meets many distinct APIs
 * (a first request answered with a failure each: a budget count, a hold streak, a learned window).
 * Heap growth after a full GC, keys kept against the bound, evictions; and the same without a
 * bound that bites, for scale.
 */
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { admit, complete, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';
import { MemoryStateStore, MEMORY_STORE_DEFAULTS } from '../../../nodes/shared/state/memory-store';

export interface StateSizeSettings {
	scopes: number;
}

export interface StateSizeRow {
	name: string;
	scopes: number;
	/** Keys offered: one controller per scope. */
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

// Keys as the node makes them (config/traffic-settings.ts): a hashed scope
const hashed = (scope: string) => `api:${createHash('sha256').update(scope).digest('hex').slice(0, 32)}`;
const PARAMS: TrafficParams = { window: { ceiling: 200, mode: 'adaptive' }, leaseMs: 40_000, budget: BUDGET_DEFAULTS, hold: HOLD_DEFAULTS };

async function fill(name: string, scopes: number, maxKeys: number): Promise<StateSizeRow> {
	collectGarbage();
	const before = process.memoryUsage().heapUsed;
	const store = new MemoryStateStore({ maxKeys });
	const now = Date.now();
	for (let s = 0; s < scopes; s++) {
		const key = hashed(`scope:${s}`);
		const id = `r${s}`;
		const admission = await store.traffic(key, now, PARAMS, (d, l) => admit(d, l, now, { id, retry: false, paced: false }, PARAMS));
		if (!admission.go) throw new Error(`state size: the first request to ${key} was not admitted (${admission.reason})`);
		await store.traffic(key, now, PARAMS, (d, l) => complete(d, l, now, admission.lease, { success: false, outageFailure: true, overload: true, throttled: false }, PARAMS));
	}
	collectGarbage();
	const heapGrowthBytes = process.memoryUsage().heapUsed - before;
	return { name, scopes, keysOffered: scopes, maxKeys, keysKept: store.size, evicted: scopes - store.size, heapGrowthBytes };
}

export async function runStateSize(settings: StateSizeSettings): Promise<StateSizeRow[]> {
	return [
		await fill(`default bound (${MEMORY_STORE_DEFAULTS.maxKeys} keys)`, settings.scopes, MEMORY_STORE_DEFAULTS.maxKeys),
		await fill('bound above the keys offered (for scale)', settings.scopes, settings.scopes + 1),
	];
}
