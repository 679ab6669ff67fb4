import { stopHeadline, whatToDo } from '../../nodes/shared/core/stop-messages';
import { STOP_REASONS } from '../../nodes/shared/core/stop-reasons';

describe('whatToDo', () => {
	it.each(STOP_REASONS.filter((reason) => !['success', 'not-a-failure'].includes(reason)))('%s: says what to do in the node\'s words, never Retry On Fail or batching', (reason) => {
		const text = whatToDo(reason);
		expect(text).toMatch(/^What to do: .+\.$/);
		expect(text).not.toMatch(/retry automatically|batching|Retry On Fail/i);
	});

	it('names the parameter that changes the outcome, as the editor shows it', () => {
		expect(whatToDo('attempts-exhausted')).toContain('Max Attempts and Total Deadline (Ms)');
		expect(whatToDo('retry-after-too-long')).toContain('Max Server-Requested Delay (Ms)');
		expect(whatToDo('final-status')).toContain('Retry On Status Codes');
		expect(whatToDo('api-held')).toContain('Traffic Control node');
	});
});

describe('stopHeadline', () => {
	const retryAt = '2026-12-05T12:56:46.000Z';
	it('is the summary, with the time the server allows another try when the summary does not say it', () => {
		expect(stopHeadline({ summary: 'Gave up after 5 attempts in 31 s: last response 503 Service Unavailable' })).toBe('Gave up after 5 attempts in 31 s: last response 503 Service Unavailable');
		expect(stopHeadline({ summary: 'The server asked to wait 1 min 30 s (retry-after), more than Max Server-Requested Delay (1 min); last response 429 Too Many Requests', retryAt })).toBe(
			`The server asked to wait 1 min 30 s (retry-after), more than Max Server-Requested Delay (1 min); last response 429 Too Many Requests; another try is allowed from ${retryAt}`,
		);
		expect(stopHeadline({ summary: `Not sent: The API looks down; the next probe (${retryAt}) comes after the total deadline`, retryAt })).toBe(`Not sent: The API looks down; the next probe (${retryAt}) comes after the total deadline`);
	});
});
