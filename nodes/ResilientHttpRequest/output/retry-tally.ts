/**
 * How many items of a run needed retries, told where n8n users look when the items themselves
 * carry no story (Retry Story: On Failed Items, the default): a hint on the node's output panel and
 * one line in n8n's log. Each attempt of a manual run is also in the browser's console
 * (console-requests.ts).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { RetryStory } from '../../shared/core/retry-story';

export class RetryTally {
	private readonly attemptsOfItem = new Map<number, number>();

	/** Counts one request of item i (an item with pagination sends one per page). */
	add(i: number, story: Pick<RetryStory, 'attempts' | 'polls'>): void {
		// a poll after a "not yet" answer (Retry When) is no retry
		this.attemptsOfItem.set(i, (this.attemptsOfItem.get(i) ?? 0) + Math.max(0, story.attempts - 1 - (story.polls ?? 0)));
	}

	/** "3 of 10 items needed retries (7 retries in all)", or undefined when none did. */
	summary(items: number): string | undefined {
		const retried = [...this.attemptsOfItem.values()].filter((retries) => retries > 0);
		if (retried.length === 0) return undefined;
		const retries = retried.reduce((sum, n) => sum + n, 0);
		const noun = items === 1 ? 'item' : 'items';
		return `${retried.length} of ${items} ${noun} needed retries (${retries} ${retries === 1 ? 'retry' : 'retries'} in all)`;
	}

	/** The hint on the output panel and the log line, when any item needed a retry. */
	report(ctx: IExecuteFunctions, items: number): void {
		const summary = this.summary(items);
		if (summary === undefined) return;
		// n8n's tool runs (an agent calling the node) have no output panel to hint on
		ctx.addExecutionHints?.({ message: `${summary}. Each item's retries are in its Retry Story field when Retry Options > Retry Story is On Every Item.`, type: 'info', location: 'outputPane' });
		ctx.logger.info(`Resilient HTTP Request "${ctx.getNode().name}": ${summary}`);
	}
}
