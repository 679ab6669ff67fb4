/**
 * How many items of a run needed retries, told where n8n users look when the items themselves
 * carry no story (Retry Story: On Failed Items, the default): a hint on the node's output panel and
 * one line in n8n's log. Each attempt of a manual run is also in the browser's console
 * (console-requests.ts).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { RetryStory } from '../../shared/core/retry-story';
import type { OutputSettings } from '../config/output-settings';

/** Where an item's story goes (OutputSettings): on its success item, on its failure, or nowhere. */
type StoryFields = Pick<OutputSettings, 'storyField' | 'failureStoryField'>;

export class RetryTally {
	private readonly attemptsOfItem = new Map<number, number>();
	private readonly storyOfItem = new Map<number, StoryFields>();

	/** Counts one request of item i (an item with pagination sends one per page), and where its story goes. */
	add(i: number, story: Pick<RetryStory, 'attempts' | 'polls'>, fields: StoryFields): void {
		// a poll after a "not yet" answer (Retry When) is no retry
		this.attemptsOfItem.set(i, (this.attemptsOfItem.get(i) ?? 0) + Math.max(0, story.attempts - 1 - (story.polls ?? 0)));
		this.storyOfItem.set(i, fields);
	}

	/**
	 * Where to read the retried items' stories: the field they are in (a failed item's under its
	 * `error`), and, when the success items carry none, the setting that puts it there.
	 */
	private whereToRead(): string {
		const retried = [...this.attemptsOfItem].filter(([, retries]) => retries > 0).map(([i]) => this.storyOfItem.get(i));
		const onSuccess = fieldsOf(retried.map((f) => f?.storyField));
		const onFailure = fieldsOf(retried.map((f) => f?.failureStoryField));
		const turnOn = 'to see them on every item, set Retry Options > Retry Story to On Every Item';
		if (retried.every((f) => Boolean(f?.storyField))) return `Each item's retries are in its ${names(onSuccess)} field (a failed item's in ${names(onFailure, 'error.')}).`;
		if (onFailure.length > 0) return `A failed item carries its retries in ${names(onFailure, 'error.')}; ${turnOn}.`;
		return `Retry Story is Off, so no item carries its retries; ${turnOn}.`;
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
		ctx.addExecutionHints?.({ message: `${summary}. ${this.whereToRead()}`, type: 'info', location: 'outputPane' });
		ctx.logger.info(`Resilient HTTP Request "${ctx.getNode().name}": ${summary}`);
	}
}

/** The fields named, once each ("" for none dropped). */
function fieldsOf(fields: Array<string | undefined>): string[] {
	return [...new Set(fields.filter((field): field is string => Boolean(field)))];
}

/** _retry, or _retry or story when items name different fields; `prefix` for where they sit. */
function names(fields: string[], prefix = ''): string {
	return fields.map((field) => `${prefix}${field}`).join(' or ');
}
