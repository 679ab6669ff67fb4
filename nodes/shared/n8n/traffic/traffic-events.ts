/**
 * This process's traffic events (nodes/shared/core/traffic/events.ts): every node that passes an
 * API's controller publishes what it reports here, and a counter counts them per API and kind for
 * code that reads them. The log is the other reader: the publishing node's own (traffic-log.ts),
 * handed to each publish, since n8n gives each node its logger.
 */
import { TrafficEventBus, TrafficEventCounter } from '../../core/traffic/events';

const processEvents = new TrafficEventBus();
const processCounter = new TrafficEventCounter();
processEvents.subscribe(processCounter.count);

/** The event bus of this n8n process: publish a controller's events to it, or subscribe a reader. */
export function getProcessTrafficEvents(): TrafficEventBus {
	return processEvents;
}

/** The events this process has published, counted per API and kind. */
export function getProcessTrafficEventCounts(): TrafficEventCounter {
	return processCounter;
}
