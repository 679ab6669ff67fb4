/**
 * The admissions Traffic Control's Wait for Room gave and Report Outcome has not closed yet, in this
 * process: each item that went on to another node (n8n's OpenAI node, Google Sheets...) holds its
 * API's room (a slot, its counted tokens) until the node after it reports what happened. They are
 * kept by execution and API, oldest first: an execution runs in one process (main or one worker),
 * from the wait to the report, so the report finds its admissions here. An admission never
 * reported (the node between failed the execution) is dropped when its lease expires, as the
 * store drops the lease itself. Pure: the caller gives the clock.
 */
import type { AttemptResult } from '../retry-loop';

interface Open<T> {
	admission: T;
	/** When the store gives up the lease (epoch ms): then this entry is of no use. */
	expiresAt: number;
}

export class OpenAdmissions<T> {
	/** By execution, then by API key: oldest first. */
	private readonly byExecution = new Map<string, Map<string, Open<T>[]>>();
	private opened = 0;

	/** Keeps `admission` of `execution` for the API `api`, until `expiresAt`. */
	open(execution: string, api: string, admission: T, expiresAt: number, nowMs: number): void {
		// now and then, the executions that ended without a report are let go
		if (++this.opened % 256 === 0) this.dropExpired(nowMs);
		let apis = this.byExecution.get(execution);
		if (!apis) this.byExecution.set(execution, (apis = new Map()));
		const list = apis.get(api);
		if (list) list.push({ admission, expiresAt });
		else apis.set(api, [{ admission, expiresAt }]);
	}

	/** The APIs `execution` holds admissions for, still open at `nowMs`. */
	apisOf(execution: string, nowMs: number): string[] {
		const apis = this.byExecution.get(execution);
		if (!apis) return [];
		return [...apis].filter(([, list]) => list.some((open) => open.expiresAt > nowMs)).map(([api]) => api);
	}

	/** The oldest open admission of `execution` for `api`, left open. */
	peek(execution: string, api: string, nowMs: number): T | undefined {
		return this.byExecution.get(execution)?.get(api)?.find((open) => open.expiresAt > nowMs)?.admission;
	}

	/** Takes the oldest open admission of `execution` for `api` (expired ones are dropped). */
	take(execution: string, api: string, nowMs: number): T | undefined {
		const apis = this.byExecution.get(execution);
		const list = apis?.get(api);
		if (!apis || !list) return undefined;
		let found: T | undefined;
		while (list.length > 0 && found === undefined) {
			const open = list.shift() as Open<T>;
			if (open.expiresAt > nowMs) found = open.admission;
		}
		if (list.length === 0) apis.delete(api);
		if (apis.size === 0) this.byExecution.delete(execution);
		return found;
	}

	/** Takes every open admission of `execution` for `api`, oldest first. */
	takeAll(execution: string, api: string, nowMs: number): T[] {
		const taken: T[] = [];
		for (let next = this.take(execution, api, nowMs); next !== undefined; next = this.take(execution, api, nowMs)) taken.push(next);
		return taken;
	}

	/** Admissions still kept, expired or not (for tests and the memory's bound). */
	get size(): number {
		let count = 0;
		for (const apis of this.byExecution.values()) for (const list of apis.values()) count += list.length;
		return count;
	}

	private dropExpired(nowMs: number): void {
		for (const [execution, apis] of this.byExecution) {
			for (const [api, list] of apis) {
				const kept = list.filter((open) => open.expiresAt > nowMs);
				if (kept.length === 0) apis.delete(api);
				else if (kept.length < list.length) apis.set(api, kept);
			}
			if (apis.size === 0) this.byExecution.delete(execution);
		}
	}
}

/** An item's admission as Report Outcome closes it: by reporting the item's result (its room goes back). */
interface GuardAdmission {
	close(result: AttemptResult<Record<string, unknown>>): Promise<void>;
	/** The Wait for Room node that gave it: where Report Outcome finds the item as the node received it. */
	waitNode: string;
}

const processAdmissions = new OpenAdmissions<GuardAdmission>();

/** The admissions of this n8n process's executions that wait for their report. */
export function getProcessOpenAdmissions(): OpenAdmissions<GuardAdmission> {
	return processAdmissions;
}
