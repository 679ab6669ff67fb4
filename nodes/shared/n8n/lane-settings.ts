/**
 * An item's lane among the requests waiting for its API (core/traffic/fair-line.ts): its Fair Share
 * Key and whether it is urgent, from Traffic Control's options.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { Lane } from '../core/traffic/fair-line';
import { parameterError } from './parameters';

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
