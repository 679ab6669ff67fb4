/**
 * An item's lane among the requests waiting for its API (core/traffic/fair-line.ts): its Fair Share
 * Key and whether it is urgent, and the Fair Share Key's own limits (core/traffic/key-gate.ts),
 * from Traffic Control's options.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { Lane } from '../core/traffic/fair-line';
import type { KeyLimits } from '../core/traffic/key-gate';
import { parameterError } from './parameters';
import { readRate, readTrafficNumber, TRAFFIC_NUMBERS } from './traffic-numbers';

const FAIR_SHARE_KEY = 'Fair Share Key';
const URGENT = 'Urgent';

/** Keys longer than this are refused: a key names a tenant or a customer, not a document. */
const MAX_KEY_LENGTH = 1000;

function readShare(ctx: IExecuteFunctions, i: number, raw: unknown): string | undefined {
	if (raw === undefined || raw === null) return undefined;
	if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') parameterError(ctx, i, FAIR_SHARE_KEY, `must be text or a number, got ${Array.isArray(raw) ? 'an array' : typeof raw}`);
	const share = String(raw).trim();
	if (share.length > MAX_KEY_LENGTH) parameterError(ctx, i, FAIR_SHARE_KEY, `must be at most ${MAX_KEY_LENGTH} characters, got ${share.length}`);
	return share === '' ? undefined : share;
}

function readUrgent(ctx: IExecuteFunctions, i: number, raw: unknown): boolean {
	if (raw === undefined || raw === null || raw === '') return false;
	if (typeof raw === 'boolean') return raw;
	if (raw === 'true' || raw === 'false') return raw === 'true';
	return parameterError(ctx, i, URGENT, `must be true or false, got ${JSON.stringify(raw)}`);
}

/**
 * The item's lane, when the node sets either option (for one item or all): then every item of the
 * node waits its turn in line, an item without a key or not urgent too, so that the urgent and the
 * small shares can go ahead of it. Neither set: no lane (requests keep their arrival order).
 */
export function readLane(ctx: IExecuteFunctions, i: number, options: IDataObject): Lane | undefined {
	if (!('fairShareKey' in options) && !('urgent' in options)) return undefined;
	const share = readShare(ctx, i, options.fairShareKey);
	const urgent = readUrgent(ctx, i, options.urgent);
	return { ...(share !== undefined ? { share } : {}), ...(urgent ? { urgent } : {}) };
}

/**
 * The limits each Fair Share Key value keeps on its own (Rate Limit Per Key, in Rate Limit Per's
 * unit; Max Items in Flight Per Key), besides the API's; none when both are 0. They count per key,
 * so they need one: set without a Fair Share Key, the item fails before any request.
 */
export function readKeyLimits(ctx: IExecuteFunctions, i: number, options: IDataObject): KeyLimits | undefined {
	const rate = readRate(ctx, i, options, 'keyRateLimit');
	const inFlight = readTrafficNumber(ctx, i, options, 'keyMaxInFlight');
	if (rate.rateLimitRps === undefined && inFlight === 0) return undefined;
	if (!('fairShareKey' in options)) {
		const named = rate.rateLimitRps !== undefined ? TRAFFIC_NUMBERS.keyRateLimit.displayName : TRAFFIC_NUMBERS.keyMaxInFlight.displayName;
		parameterError(ctx, i, named, `counts per ${FAIR_SHARE_KEY}: add ${FAIR_SHARE_KEY} to the options (the customer or tenant each limit is for), or set it to 0`);
	}
	return { ...rate, ...(inFlight > 0 ? { maxInFlight: inFlight } : {}) };
}
