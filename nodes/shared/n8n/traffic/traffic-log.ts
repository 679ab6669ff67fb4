/**
 * The log lines of the APIs' traffic controllers, each naming the node that wrote it by its own
 * display name and its name in the workflow. The log reads the same records as every other reader
 * of the events (traffic-events.ts), written through the publishing node's own `this.logger`: the
 * channel n8n gives a node (a package's copy of n8n-workflow would hold a LoggerProxy that n8n never
 * set up).
 */
import type { IExecuteFunctions, Logger } from 'n8n-workflow';
import { formatDuration } from '../../core/retry-story';
import type { TrafficEvent } from '../../core/traffic/controller';
import type { TrafficEventRecord } from '../../core/traffic/events';
import { isoTime } from '../../core/traffic/limits/limit';

/** How a log line names a node: its display name, then its name in the workflow. */
function nodeLogName(nodeType: string, node: string): string {
	return `${nodeType} "${node}"`;
}

/** The node running in `ctx`, named for its log lines. */
export function logNameOf(ctx: IExecuteFunctions, nodeType: string): string {
	return nodeLogName(nodeType, ctx.getNode().name);
}

function pausedMessage(label: string, event: Extract<TrafficEvent, { kind: 'paused' }>, nowMs: number): string {
	const until = `${formatDuration(event.until - nowMs)} (${isoTime(event.until)})`;
	if (event.bucket !== undefined) return `the API ${label}'s rate-limit bucket "${event.bucket}" is spent: requests to it wait for its reset in ${until}; its other endpoints go on`;
	if (event.by === 'quota') return `the API ${label}'s rate-limit quota is spent: its requests wait for its reset in ${until}`;
	if (event.probedFrom === undefined) return `the API ${label} asked to wait (${event.by}): its requests are paused for ${until}`;
	return `the API ${label} throttled without saying until when (${event.by}): its requests are paused for at most ${until}, one request probing from ${isoTime(event.probedFrom)}`;
}

function resumedMessage(label: string, event: Extract<TrafficEvent, { kind: 'resumed' }>): string {
	if (event.how === 'refilled') return event.bucket !== undefined ? `the API ${label}'s rate-limit bucket "${event.bucket}" is refilled: requests to it go again` : `the API ${label}'s rate-limit quota is refilled: its requests go again`;
	if (event.how === 'probe') return `the API ${label} takes requests again (a probe of the pause by ${event.by} was answered): the pause ends`;
	return `the API ${label}'s pause (${event.by}) is over: its requests go again`;
}

/** Writes one event's line to `logger` (the publishing node's). */
export function logTrafficEvent(logger: Logger, record: TrafficEventRecord): void {
	const node = nodeLogName(record.nodeType, record.node);
	const label = record.label;
	switch (record.kind) {
		case 'paused':
			logger.info(`${node}: ${pausedMessage(label, record, record.at)}`);
			break;
		case 'resumed':
			// what an operator ended by hand, the Traffic Control node logs itself: one line for all it ended
			if (record.how !== 'hand') logger.info(`${node}: ${resumedMessage(label, record)}`);
			break;
		case 'held':
			logger.warn(`${node}: the API ${label} looks down: its requests are held, one probe at ${new Date(record.nextProbeAt).toISOString()}`);
			break;
		case 'recovered':
			logger.info(`${node}: the API ${label} answers again: the held requests come back gradually`);
			break;
		case 'window':
			logger.debug(`${node}: requests in flight to ${label} ${record.decrease.from} -> ${record.decrease.to}`);
			break;
		case 'rate-learned':
			logger.info(`${node}: the API ${label} throttles: its requests are paced at ${Math.round(record.rps * 10) / 10} per second`);
			break;
	}
}
