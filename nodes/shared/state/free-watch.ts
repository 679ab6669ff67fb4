/**
 * The pub/sub of the Redis store: a step that may let a request go publishes on the API's
 * `:free` channel (the STEP script does, state/step-codec.ts); a process with requests waiting on
 * that API subscribes here and wakes them. One subscription per channel and process, on a
 * connection of its own, whatever the number of watchers.
 */
import type { RedisClient, RedisLike } from './redis-client';

export class FreeWatch {
	private readonly watchers = new Map<string, Set<() => void>>();
	private subscriber: Promise<RedisLike> | undefined;

	constructor(
		private readonly client: RedisClient,
		/** What this process's own scripts publish: its news already woke its waiters. */
		private readonly from: string,
	) {}

	/** Calls `onChange` when another process publishes on `channel`; returns the unwatch. */
	watch(channel: string, onChange: () => void): () => void {
		let listeners = this.watchers.get(channel);
		if (!listeners) {
			listeners = new Set();
			this.watchers.set(channel, listeners);
			void this.subscribe(channel, true);
		}
		listeners.add(onChange);
		return () => {
			listeners.delete(onChange);
			if (listeners.size > 0 || this.watchers.get(channel) !== listeners) return;
			this.watchers.delete(channel);
			void this.subscribe(channel, false);
		};
	}

	/** Drops the subscriber's connection (the next watch makes another). */
	async close(): Promise<void> {
		const subscriber = this.subscriber;
		this.subscriber = undefined;
		if (subscriber) (await subscriber.catch(() => undefined))?.disconnect();
	}

	private async subscribe(channel: string, on: boolean): Promise<void> {
		try {
			const subscriber = await this.subscriberClient();
			if (!on) {
				await subscriber.unsubscribe(channel);
				return;
			}
			await subscriber.subscribe(channel);
			// news published while the subscription was being made is lost: the watchers look once now
			for (const listener of this.watchers.get(channel) ?? []) listener();
		} catch {
			// without pub/sub the waiting requests still look again at the gate's safety poll
			const failed = this.subscriber;
			this.subscriber = undefined;
			(await failed?.catch(() => undefined))?.disconnect();
		}
	}

	private subscriberClient(): Promise<RedisLike> {
		this.subscriber ??= this.client.duplicate().then((subscriber) => {
			subscriber.on('message', (channel: string, from: string) => {
				// this process's own reports already woke its waiters
				if (from === this.from) return;
				for (const listener of this.watchers.get(channel) ?? []) listener();
			});
			return subscriber;
		});
		return this.subscriber;
	}
}
