/**
 * Where this node's API controllers (pause, hold, window, pace, budget) live for this execution (nodes/shared/n8n/traffic/
 * state-store.ts): a Redis problem never fails a request, the store falls back to memory.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { StateStore } from '../../shared/core/traffic/store';
import { selectStateStore as selectSharedStateStore } from '../../shared/n8n/traffic/state-store';
import { NODE_DISPLAY_NAME } from './display-name';

export function selectStateStore(ctx: IExecuteFunctions, memoryStore: StateStore): Promise<StateStore> {
	return selectSharedStateStore(ctx, memoryStore, NODE_DISPLAY_NAME, 'with fallback');
}
