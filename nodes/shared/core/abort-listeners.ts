/**
 * One listener per cancel signal, however many attempts, sleeps and waiters listen to it. Node's
 * AbortSignal keeps its listeners in a list: each attempt that added and removed its own listener
 * on the execution's signal cost a walk of that list, so 200 requests in flight paid O(200) per
 * attempt (about 4% of the healthy path's CPU at 5,000 items, issue 24). Here a subscriber is one
 * entry in a set; the listeners fire in the order they subscribed, each once, as with
 * `addEventListener(..., { once: true })`, and never when the signal had already aborted.
 */

type Listener = () => void;

const subscribers = new WeakMap<AbortSignal, Set<Listener>>();

function listenersOf(signal: AbortSignal): Set<Listener> {
	let listeners = subscribers.get(signal);
	if (listeners) return listeners;
	const created = new Set<Listener>();
	subscribers.set(signal, created);
	signal.addEventListener(
		'abort',
		() => {
			const due = [...created];
			created.clear();
			// the subscribers here settle a promise or abort a controller: none throws
			for (const listener of due) listener();
		},
		{ once: true },
	);
	listeners = created;
	return listeners;
}

/** Calls `listener` once when `signal` aborts; the returned function unsubscribes it. */
export function onAbort(signal: AbortSignal | undefined, listener: Listener): () => void {
	if (!signal || signal.aborted) return () => {};
	const listeners = listenersOf(signal);
	listeners.add(listener);
	return () => listeners.delete(listener);
}
