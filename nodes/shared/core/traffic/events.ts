/**
 * The controller's events as data: each change it reports (a pause and its end, a hold and the
 * recovery, a smaller window, a learned pace) becomes one plain record that says of which API, from
 * which node and when, and goes to every reader subscribed: the log writes it, a counter counts it,
 * and whatever comes next (metrics, the Traffic Control node) reads the same records.
 */
import type { TrafficEvent } from './controller';

/** Where an event comes from: the API's controller (its key and label) and the node that saw it. */
export interface TrafficEventSource {
	/** The API's controller key. */
	key: string;
	/** How the log names the API: its host, or "its scope". */
	label: string;
	/** The node's name in its workflow. */
	node: string;
	/** The node's display name (its type, as a person reads it). */
	nodeType: string;
}

/** One event of one API's controller, at a time (epoch ms of the node's clock). */
export type TrafficEventRecord = TrafficEvent & TrafficEventSource & { at: number };

type TrafficEventReader = (record: TrafficEventRecord) => void;

export class TrafficEventBus {
	private readonly readers: TrafficEventReader[] = [];

	/** `reader` reads every record published from now on; the function returned ends that. */
	subscribe(reader: TrafficEventReader): () => void {
		this.readers.push(reader);
		return () => {
			const index = this.readers.indexOf(reader);
			if (index >= 0) this.readers.splice(index, 1);
		};
	}

	/**
	 * Gives each event, as a record of `source` at `at`, to every reader, and to the publisher's own
	 * (`also`: its log). Called only when there are events.
	 */
	publish(source: TrafficEventSource, events: readonly TrafficEvent[], at: number, also?: TrafficEventReader): void {
		for (const event of events) {
			const record: TrafficEventRecord = { ...event, key: source.key, label: source.label, node: source.node, nodeType: source.nodeType, at };
			for (const reader of this.readers) reader(record);
			also?.(record);
		}
	}
}

type EventKind = TrafficEvent['kind'];

/** One API's events counted by kind, and the label it was last seen by. */
interface ApiEventCounts {
	label: string;
	counts: Partial<Record<EventKind, number>>;
}

/** Counts the events per API and kind (a reader of a TrafficEventBus). */
export class TrafficEventCounter {
	private readonly apis = new Map<string, ApiEventCounts>();

	/** The reader to subscribe: counts the record. */
	readonly count = (record: TrafficEventRecord): void => {
		let api = this.apis.get(record.key);
		if (!api) this.apis.set(record.key, (api = { label: record.label, counts: {} }));
		api.label = record.label;
		api.counts[record.kind] = (api.counts[record.kind] ?? 0) + 1;
	};

	/** The API's counts by kind so far (a copy); none counted: an empty object. */
	countsOf(key: string): Partial<Record<EventKind, number>> {
		return { ...this.apis.get(key)?.counts };
	}

	/** Every API's counts so far (copies), by key. */
	all(): Array<{ key: string } & ApiEventCounts> {
		return [...this.apis].map(([key, api]) => ({ key, label: api.label, counts: { ...api.counts } }));
	}
}
