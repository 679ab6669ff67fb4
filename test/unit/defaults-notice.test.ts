/**
 * The notices above the option groups say what is in effect before the user adds anything: every
 * option that is on by default is named, and the values are the defaults the runtime uses
 * (core/defaults.ts, the traffic limits' *_DEFAULTS), so the panel cannot say one thing and the
 * node do another.
 */
import type { INodeProperties } from 'n8n-workflow';
import { BackoffDelay } from '../../nodes/BackoffDelay/BackoffDelay.node';
import { BACKOFF_DEFAULTS } from '../../nodes/BackoffDelay/description';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { ITEMS_IN_FLIGHT } from '../../nodes/ResilientHttpRequest/descriptions/options.description';
import { RETRY_DEFAULTS } from '../../nodes/shared/core/defaults';
import { formatDuration } from '../../nodes/shared/core/retry-story';
import { BUDGET_DEFAULTS } from '../../nodes/shared/core/traffic/budget';
import { HOLD_DEFAULTS } from '../../nodes/shared/core/traffic/hold-state';
import { defaultInWords, defaultsNotice } from '../../nodes/shared/n8n/defaults-notice';

const NODES = { 'Resilient HTTP Request': new ResilientHttpRequest(), 'Backoff Delay': new BackoffDelay() };

/** Each collection of a node with the notice placed just above it (undefined when there is none). */
function collectionsWithNotices(properties: INodeProperties[]): Array<{ collection: INodeProperties; notice?: INodeProperties }> {
	return properties.flatMap((p, k) => {
		if (p.type !== 'collection') return [];
		const before = properties[k - 1];
		return [{ collection: p, ...(before?.type === 'notice' && before.name === `${p.name}Defaults` ? { notice: before } : {}) }];
	});
}

function noticeOf(node: keyof typeof NODES, collection: string): string {
	const found = collectionsWithNotices(NODES[node].description.properties).find((c) => c.collection.name === collection);
	if (!found?.notice) throw new Error(`${node}: no notice above "${collection}"`);
	return found.notice.displayName;
}

describe.each(Object.entries(NODES))('%s: the defaults notices', (_name, node) => {
	const groups = collectionsWithNotices(node.description.properties);

	it('every option group has a notice just above it, shown where the group is shown', () => {
		for (const { collection, notice } of groups) {
			expect({ group: collection.displayName, notice: notice?.type }).toEqual({ group: collection.displayName, notice: 'notice' });
			expect(notice?.displayOptions).toEqual(collection.displayOptions);
		}
	});

	it('names every option that is on by default, with "on"', () => {
		for (const { collection, notice } of groups) {
			const onByDefault = (collection.options as INodeProperties[]).filter((o) => o.type === 'boolean' && o.default === true);
			for (const option of onByDefault) expect(notice?.displayName).toContain(`${option.displayName}: on`);
		}
	});
});

describe('the values the notices show are the runtime defaults', () => {
	it('Retry Options', () => {
		const text = noticeOf('Resilient HTTP Request', 'retryOptions');
		expect(text).toContain(`Base Delay: ${formatDuration(RETRY_DEFAULTS.baseDelayMs)}`);
		expect(text).toContain(`Max Delay: ${formatDuration(RETRY_DEFAULTS.maxDelayMs)}`);
		expect(text).toContain(`Attempt Timeout: ${formatDuration(RETRY_DEFAULTS.attemptTimeoutMs)}`);
		expect(text).toContain(`Total Deadline: ${formatDuration(RETRY_DEFAULTS.totalDeadlineMs)}`);
		expect(text).toContain(`Max Server-Requested Delay: ${formatDuration(RETRY_DEFAULTS.maxServerDelayMs)}`);
		expect(text).toContain(`Jitter: ${RETRY_DEFAULTS.jitter[0].toUpperCase()}${RETRY_DEFAULTS.jitter.slice(1)}`);
		expect(text).toContain(`Retry Story Field: ${RETRY_DEFAULTS.storyField}`);
		expect(text).toContain('Retry Story: On Failed Items');
	});

	it('Traffic Control: the retry budget and the hold, each with its settings', () => {
		const text = noticeOf('Resilient HTTP Request', 'sharedLimits');
		expect(text).toContain(
			`Retry Budget: on (Retries Allowed ${BUDGET_DEFAULTS.ratio * 100}%, Retries Always Allowed ${BUDGET_DEFAULTS.minRetriesPerWindow}, Counted Over ${formatDuration(BUDGET_DEFAULTS.windowMs)})`,
		);
		expect(text).toContain(`Hold During Outages: on (Failures in a Row ${HOLD_DEFAULTS.consecutiveFailures}, Failed Share ${HOLD_DEFAULTS.failureRatio * 100}%`);
		expect(text).toContain(`Minimum Requests for the Share ${HOLD_DEFAULTS.minimumCalls}, Counted Over ${formatDuration(HOLD_DEFAULTS.windowMs)}`);
		expect(text).toContain(`First Test Request After ${formatDuration(HOLD_DEFAULTS.breakMs)}, Max Time Between Test Requests ${formatDuration(HOLD_DEFAULTS.maxBreakMs)})`);
		expect(text).toContain('Rate Limit: none');
	});

	it('Options: items in flight', () => {
		expect(noticeOf('Resilient HTTP Request', 'options')).toContain(`Adapt Items in Flight: on; Max Items in Flight: ${ITEMS_IN_FLIGHT.default}`);
	});

	it("Backoff Delay's Options: its own longer server wait and no deadline", () => {
		const text = noticeOf('Backoff Delay', 'options');
		expect(text).toContain(`Max Server-Requested Delay: ${formatDuration(BACKOFF_DEFAULTS.maxServerDelayMs)}`);
		expect(text).toContain(`In-Process Wait Limit: ${formatDuration(BACKOFF_DEFAULTS.inProcessWaitLimitMs)}`);
		expect(text).toContain('Total Deadline: none');
		expect(text).toContain(`Backoff Field: ${BACKOFF_DEFAULTS.stateField}`);
	});
});

describe('defaultInWords', () => {
	const number = (displayName: string, value: number): INodeProperties => ({ displayName, name: 'n', type: 'number', default: value });
	const cases: Array<[INodeProperties, string]> = [
		[number('Base Delay (Ms)', 1500), '1.5 s'],
		[number('Total Deadline (Ms)', 0), 'none'],
		[number('Hold: Failed Share (%)', 50), '50%'],
		[number('Max Items in Flight', 1000), '1000'],
		[{ displayName: 'Lowercase Headers', name: 'b', type: 'boolean', default: false } as INodeProperties, 'off'],
		[{ displayName: 'Field', name: 's', type: 'string', default: '' } as INodeProperties, 'none'],
		[{ displayName: 'Jitter', name: 'j', type: 'options', options: [{ name: 'Equal', value: 'equal' }], default: 'equal' } as INodeProperties, 'Equal'],
	];
	it.each(cases.map(([option, words]) => ({ label: `${option.type} "${option.displayName}" = ${JSON.stringify(option.default)}`, option, words })))('$label -> $words', ({ option, words }) => {
		expect(defaultInWords(option)).toBe(words);
	});

	it('refuses a default that is none of the option values, and an option the group lacks', () => {
		expect(() => defaultInWords({ displayName: 'Jitter', name: 'j', type: 'options', options: [{ name: 'Equal', value: 'equal' }], default: 'full' })).toThrow('none of its values');
		const group: INodeProperties = { displayName: 'Group', name: 'group', type: 'collection', default: {}, options: [number('Base Delay (Ms)', 1000)] };
		expect(() => defaultsNotice(group, ['missing'])).toThrow('"Group" has no option "missing"');
		expect(defaultsNotice(group, ['n']).displayName).toBe('Defaults (add an option to change one): Base Delay: 1 s.');
	});
});
