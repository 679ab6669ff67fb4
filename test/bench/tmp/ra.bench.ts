import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { startUpstream } from '../upstream';
import { benchWorkflow, items, perItemUrl, realTimeRuntime, resilientHttp, runOnce } from '../workflows';
it('ra', async () => {
	const upstream = await startUpstream();
	for (let i = 0; i < 2; i++) {
		await upstream.take();
		const url = perItemUrl(`${upstream.url}/429/2`, `ra-probe-${i}`);
		const http = resilientHttp(url, {}, 'continueRegularOutput');
		const started = Date.now();
		await runOnce(benchWorkflow(`ra-${i}`, http), items(0, 100), { runtime: realTimeRuntime(2026 + i), store: new MemoryStateStore() }, 900_000);
		const log = await upstream.take();
		const t0 = log[0].time;
		const buckets = new Map<number, string[]>();
		for (const r of log) { const b = Math.floor((r.time - t0) / 250); buckets.set(b, [...(buckets.get(b) ?? []), String(r.status)]); }
		console.log(`run ${i}: ${Date.now() - started} ms\n` + [...buckets].map(([b, s]) => `${(b * 0.25).toFixed(2)}s: 429x${s.filter((x) => x === '429').length} 200x${s.filter((x) => x === '200').length}`).join('\n'));
	}
	await upstream.close();
});
