/**
 * Scenario 9, polling a job: a job API (POST answers 202 + Location; the status answers 202
 * until the job is done, then 200) with jobs of a few durations, each polled by Resilient HTTP
 * Request (Follow Asynchronous Operations, the default polling pace) and by the hand-built loop it
 * replaces (n8n's HTTP Request, a Wait of a fixed interval, HTTP Request, IF not done, back to the
 * Wait), all at once in real time: the jobs run on the upstream's clock for their whole duration,
 * nothing is scaled. Requests per job and when the job was seen done, on the upstream's clock.
 *
 * Each duration is run as several jobs whose lengths are spread over one of the loop's intervals
 * (the phases): a job of exactly 5 min ends on one of a 5 s loop's looks, which no real job does,
 * and how late any poller sees a job end depends on where the end falls between its looks.
 * docs/polling.md says why the goal is judged over the phases; poll-phases.ts spreads them.
 */
import type { INode } from 'n8n-workflow';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import type { WorkflowJson } from '../../engine/harness';
import type { Upstream } from '../upstream';
import { ITEMS_SOURCE } from '../../engine/workflow-builders';
import { mean } from '../stats';
import { jobLengths } from './poll-phases';
import { benchWorkflow, items, realTimeRuntime, resilientHttp, runOnce } from '../workflows';

export interface PollingSettings {
	jobSeconds: number[];
	loopWaitSeconds: number;
	/** Jobs per duration, their lengths spread by jobLengths (poll-phases.ts; 1: the duration alone). */
	phases: number;
	seed: number;
}

export interface PollingRow {
	/** The duration the row stands for. */
	jobSeconds: number;
	/** This job's own length: the duration plus its phase. */
	lengthSeconds: number;
	slug: 'resilient' | 'loop';
	name: string;
	/** The POST and every status request. */
	requests: number;
	/** From the POST's arrival to the answer that said done, on the upstream's clock (NaN: never done). */
	doneAfterMs: number;
	succeeded: boolean;
}

const node = (name: string, type: string, parameters: object, typeVersion = 1, extra: Partial<INode> = {}): INode => ({ id: name, name, type, typeVersion, position: [0, 0], parameters: parameters as INode['parameters'], ...extra });

/** Start -> Items -> Start job (HTTP Request) -> Wait -> Get status -> IF done -> Done, else back to Wait. */
function loopWorkflow(id: string, url: string, waitSeconds: number): WorkflowJson {
	const done = {
		conditions: { options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 }, conditions: [{ id: 'd', leftValue: '={{ $json.status }}', rightValue: 'done', operator: { type: 'string', operation: 'equals' } }], combinator: 'and' },
		options: {},
	};
	return {
		id,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}),
			node('Items', ITEMS_SOURCE, {}),
			node('Start job', 'n8n-nodes-base.httpRequest', { method: 'POST', url, options: {} }, 4.2),
			node('Wait', 'n8n-nodes-base.wait', { amount: waitSeconds, unit: 'seconds' }, 1.1, { webhookId: `${id}-wait` }),
			node('Get status', 'n8n-nodes-base.httpRequest', { url, options: {} }, 4.2),
			node('Done?', 'n8n-nodes-base.if', done, 2.2),
			node('Done', 'n8n-nodes-base.noOp', {}),
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Start job', type: 'main', index: 0 }]] },
			'Start job': { main: [[{ node: 'Wait', type: 'main', index: 0 }]] },
			Wait: { main: [[{ node: 'Get status', type: 'main', index: 0 }]] },
			'Get status': { main: [[{ node: 'Done?', type: 'main', index: 0 }]] },
			'Done?': { main: [[{ node: 'Done', type: 'main', index: 0 }], [{ node: 'Wait', type: 'main', index: 0 }]] },
		},
	};
}

interface JobRun {
	slug: PollingRow['slug'];
	jobSeconds: number;
	lengthSeconds: number;
	succeeded: boolean;
	path: string;
}

async function runJob(upstream: Upstream, settings: PollingSettings, jobSeconds: number, lengthSeconds: number, phase: number, slug: PollingRow['slug']): Promise<JobRun> {
	const id = `poll-${slug}-${jobSeconds}-${phase}`;
	const path = `/jobs/${lengthSeconds}/${id}`;
	const url = `${upstream.url}${path}`;
	const limitMs = lengthSeconds * 1000 * 3 + 120_000;
	if (slug === 'loop') {
		const run = await runOnce(loopWorkflow(id, url, settings.loopWaitSeconds), items(0, 1), undefined, limitMs);
		return { slug, jobSeconds, lengthSeconds, path, succeeded: run.status === 'success' && run.runsOf('Done') > 0 };
	}
	const http = resilientHttp(url, { method: 'POST', idempotencyKeyMode: 'generate', retryOptions: { followAsyncOperations: true, totalDeadline: limitMs } }, 'continueRegularOutput');
	const run = await runOnce(benchWorkflow(id, http), items(0, 1), { runtime: realTimeRuntime(settings.seed + phase), store: new MemoryStateStore() }, limitMs);
	const [item] = run.status === 'success' ? run.outputOf('HTTP') : [];
	return { slug, jobSeconds, lengthSeconds, path, succeeded: item?.json.status === 'done' };
}

/** Every job of every duration and phase, polled both ways, all at once: the longest job bounds the time. */
export async function runPolling(upstream: Upstream, settings: PollingSettings): Promise<PollingRow[]> {
	await upstream.take();
	const runs = await Promise.all(
		settings.jobSeconds.flatMap((s) => jobLengths(s, settings.loopWaitSeconds, settings.phases).flatMap((length, phase) => (['resilient', 'loop'] as const).map((slug) => runJob(upstream, settings, s, length, phase, slug)))),
	);
	const log = await upstream.take();
	return runs.map((run) => {
		const requests = log.filter((r) => r.path === run.path);
		const done = requests.find((r) => r.method === 'GET' && r.status === 200);
		return {
			jobSeconds: run.jobSeconds,
			lengthSeconds: run.lengthSeconds,
			slug: run.slug,
			name: run.slug === 'resilient' ? 'Resilient HTTP Request, Follow Asynchronous Operations (defaults)' : `HTTP Request + Wait ${settings.loopWaitSeconds} s + IF loop`,
			requests: requests.length,
			doneAfterMs: done && requests[0] ? done.time - requests[0].time : NaN,
			succeeded: run.succeeded,
		};
	});
}

/** One duration polled one way, over its phases. */
export interface PollingSummary {
	jobSeconds: number;
	slug: PollingRow['slug'];
	name: string;
	jobs: number;
	succeeded: number;
	meanRequests: number;
	fewestRequests: number;
	mostRequests: number;
	/** How long after the job's end the answer that said done came: mean and most, over the phases. */
	meanLateMs: number;
	mostLateMs: number;
}

/** The rows of one duration and way, summed up over their phases. */
export function summarizePolling(rows: PollingRow[], jobSeconds: number, slug: PollingRow['slug']): PollingSummary | undefined {
	const mine = rows.filter((r) => r.jobSeconds === jobSeconds && r.slug === slug);
	if (mine.length === 0) return undefined;
	const late = mine.map((r) => r.doneAfterMs - r.lengthSeconds * 1000);
	return {
		jobSeconds,
		slug,
		name: mine[0].name,
		jobs: mine.length,
		succeeded: mine.filter((r) => r.succeeded).length,
		meanRequests: mean(mine.map((r) => r.requests)),
		fewestRequests: Math.min(...mine.map((r) => r.requests)),
		mostRequests: Math.max(...mine.map((r) => r.requests)),
		meanLateMs: mean(late),
		mostLateMs: Math.max(...late),
	};
}
