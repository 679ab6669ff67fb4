/**
 * Scenario 6, duplicate side effects: POST items to a payment-like endpoint; one item's first
 * request gets a 503, every other request succeeds and charges. How many requests and charges
 * did each item cause? Retry On Fail re-runs the whole node; Resilient HTTP Request retries only
 * the failed item, and (POST not being idempotent) only with an idempotency key.
 */
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, itemKey, items, realTimeRuntime, resilientHttp, RETRY_ON_FAIL_DEFAULT, runOnce } from '../workflows';

export interface DuplicateSettings {
	items: number;
	/** The item whose first request fails. */
	failingItem: number;
	seed: number;
}

export interface DuplicateRow {
	slug: 'dup-rof' | 'dup-resilient';
	name: string;
	items: number;
	requests: number;
	/** Successful POSTs, i.e. charges. */
	charges: number;
	/** Items charged more than once. */
	chargedTwice: number;
	/** Requests per item, item 0 first. */
	requestsPerItem: number[];
	/** Whether every retry of an item carried the item's first idempotency key. */
	sameKeyOnRetry: boolean;
	succeeded: boolean;
}

export async function runDuplicates(upstream: Upstream, settings: DuplicateSettings): Promise<DuplicateRow[]> {
	const variants = [
		{ name: 'HTTP Request + Retry On Fail, default (3 tries, 1000 ms)', slug: 'dup-rof' as const, resilient: false },
		{ name: 'Resilient HTTP Request, Idempotency Key "generate"', slug: 'dup-resilient' as const, resilient: true },
	];
	const rows: DuplicateRow[] = [];
	for (const variant of variants) {
		await upstream.take();
		// /status/503/<failures>/<key>: the failing item's first request gets 503, then 200
		const url = `={{ "${upstream.url}/status/503/" + ($json.n === ${settings.failingItem} ? 1 : 0) + "/${variant.slug}-" + $json.n }}`;
		const http = variant.resilient ? resilientHttp(url, { method: 'POST', idempotencyKeyMode: 'generate' }) : coreHttp(url, RETRY_ON_FAIL_DEFAULT, 'POST');
		const run = await runOnce(benchWorkflow(variant.slug, http), items(0, settings.items), variant.resilient ? { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() } : undefined);
		const log = await upstream.take();
		const perItem = Array.from({ length: settings.items }, (_, n) => log.filter((r) => r.key === itemKey(variant.slug, n)));
		const chargesPerItem = perItem.map((requests) => requests.filter((r) => r.method === 'POST' && r.status === 200).length);
		rows.push({
			slug: variant.slug,
			name: variant.name,
			items: settings.items,
			requests: log.length,
			charges: chargesPerItem.reduce((a, b) => a + b, 0),
			chargedTwice: chargesPerItem.filter((c) => c > 1).length,
			requestsPerItem: perItem.map((requests) => requests.length),
			sameKeyOnRetry: perItem.every((requests) => requests.every((r) => r.idempotencyKey === requests[0].idempotencyKey)),
			succeeded: run.status === 'success',
		});
	}
	return rows;
}
