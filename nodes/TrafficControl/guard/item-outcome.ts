/**
 * What an item that came out of the node behind Wait for Room says of its call: a success, or a
 * failure read as Backoff Delay reads one (item-failure.ts: an error's status, code and wait; n8n's
 * status headlines, which is all most app and AI nodes hand on under On Error: Continue), with the
 * rules of Resilient HTTP Request's attempts. The user may name the status and the wait instead.
 */
import type { IDataObject } from 'n8n-workflow';
import type { AttemptResult } from '../../shared/core/retry-loop';
import { parseStatusList } from '../../shared/core/classify';
import { RETRY_DEFAULTS } from '../../shared/core/defaults';
import { classifyItemFailure, readItemFailure } from '../../shared/core/item-failure';
import type { ReportSettings } from './settings';

const RETRY_ON = parseStatusList(RETRY_DEFAULTS.retryOnStatuses);

/** The item failed: it carries an error, or a response status of 400 or more (a node's full response). */
export function itemFailed(json: IDataObject, settings: ReportSettings): boolean {
	if (settings.statusCode !== undefined) return settings.statusCode >= 400;
	if (json.error !== undefined && json.error !== null && json.error !== '') return true;
	const status = typeof json.statusCode === 'number' ? json.statusCode : undefined;
	return status !== undefined && status >= 400;
}

export function itemResult(json: IDataObject, settings: ReportSettings, nowMs: number): AttemptResult<Record<string, unknown>> {
	if (!itemFailed(json, settings)) return { ok: true, value: json, ...(settings.statusCode !== undefined ? { status: settings.statusCode } : {}) };
	const found = readItemFailure(json, nowMs);
	if (settings.statusCode !== undefined) found.status = settings.statusCode;
	if (settings.serverWaitMs !== undefined) found.serverDelay = { delayMs: settings.serverWaitMs, header: 'server-requested wait', kind: 'retry-after' };
	return { ok: false, failure: classifyItemFailure(found, { onlyTransient: true, retryOn: RETRY_ON, obeyHints: true }) };
}
