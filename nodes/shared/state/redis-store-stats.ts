/**
 * What a Redis store sent and how it went, counted as its scripts go: the benchmark
 * (test/bench/redis-cost-worker.js) and the tests read it through RedisStateStore.stats().
 */
import type { LostTo } from './step-codec';

export interface RedisStoreStats {
	/** Scripts sent (round trips). */
	scripts: number;
	/** Controller steps applied. */
	steps: number;
	/** Scripts that found another version than the one their steps started from. */
	lostCas: number;
	/** Scripts that added their counts to other workers' (Step.merges) rather than compare them. */
	merges: number;
	/** Of the lost races, why: another version of the state, leases in flight out of the steps' range, a window others grew, counts others added to (an exact write). */
	lostTo: Record<LostTo, number>;
	/** Scripts that got no answer in time. */
	timeouts: number;
	/** Leases a timed-out script may have added (or was to end) that a later script ended. */
	leasesReleased: number;
	/** Bytes of the scripts' arguments and answers. */
	bytesSent: number;
	bytesReceived: number;
	/** The most bytes one script sent and got back: bounded by maxBatch steps, whatever the requests in flight. */
	largestCall: number;
}

export class StoreStats {
	private readonly counts: RedisStoreStats = { scripts: 0, steps: 0, merges: 0, lostTo: { state: 0, inFlight: 0, window: 0, counts: 0 }, lostCas: 0, timeouts: 0, leasesReleased: 0, bytesSent: 0, bytesReceived: 0, largestCall: 0 };

	/** A script went out with `bytes` of keys and arguments. */
	sent(bytes: number, merge: boolean): void {
		this.counts.scripts++;
		if (merge) this.counts.merges++;
		this.counts.bytesSent += bytes;
	}

	/** Its answer came back. */
	answered(sentBytes: number, receivedBytes: number): void {
		this.counts.bytesReceived += receivedBytes;
		this.counts.largestCall = Math.max(this.counts.largestCall, sentBytes + receivedBytes);
	}

	applied(steps: number, leasesReleased: number): void {
		this.counts.steps += steps;
		this.counts.leasesReleased += leasesReleased;
	}

	lost(why: LostTo | undefined): void {
		this.counts.lostCas++;
		if (why) this.counts.lostTo[why]++;
	}

	timedOut(): void {
		this.counts.timeouts++;
	}

	snapshot(): RedisStoreStats {
		return { ...this.counts, lostTo: { ...this.counts.lostTo } };
	}
}
