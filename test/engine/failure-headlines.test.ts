/**
 * A failed item's headline is the node's own account (issue 38): for every stop reason the HTTP
 * node has, the error item's `message` (error output, Continue) and the thrown error's message and
 * description (Stop Workflow) say what happened and what to do, never HTTP Request's advice to retry
 * automatically or to batch; HTTP Request's other error fields stay. The story reads as lines: in
 * the description, in the editor's HTML of it (context.descriptionTemplate) and in `_retry.lines`.
 */
import type { IDataObject } from 'n8n-workflow';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { storyLines, type RetryStory, type StopReason } from '../../nodes/shared/core/retry-story';
import type { LocalHandler } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();

/** Advice HTTP Request (n8n's NodeApiError) gives that contradicts the node. */
const FOREIGN_ADVICE = /retry automatically|batching|Retry On Fail/i;

interface HeadlineCase {
	reason: StopReason;
	label: string;
	handler: LocalHandler;
	parameters: IDataObject;
	/** The message of the error item and of the thrown error. */
	headline: RegExp;
	/** Where the headline stays HTTP Request's (a request that must change): the thrown error's message, by n8n's words for the status. */
	thrownHeadline?: RegExp;
	/** A run before, on the same API's controller, that leaves it paused or held. */
	before?: { handler: LocalHandler; parameters: IDataObject };
}

const unavailable: LocalHandler = () => ({ status: 503, statusText: 'Service Unavailable' });
const slowDown: LocalHandler = () => ({ status: 429, statusText: 'Too Many Requests', headers: { 'retry-after': '90' } });
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
/** Hold After 1 failure, first probe after a minute: the next request of the API waits, then stops at its deadline. */
const holdsAtOnce = { sharedLimits: { breakerConsecutiveFailures: 1, breakerBreak: 60_000, breakerMaxBreak: 60_000 } };

const CASES: HeadlineCase[] = [
	{ reason: 'attempts-exhausted', label: '503 until the attempts are used up', handler: unavailable, parameters: { maxAttempts: 2 }, headline: /^Gave up after 2 attempts in .+: last response 503 Service Unavailable$/ },
	{
		reason: 'deadline-exceeded',
		label: '503 until the total deadline',
		handler: unavailable,
		parameters: { retryOptions: { totalDeadline: 1500, baseDelay: 1000, jitter: 'none' } },
		headline: /^Gave up after 2 attempts in .+: the next retry \(in 2 s\) would start after the total deadline; last response 503 Service Unavailable$/,
	},
	{
		reason: 'retry-after-too-long',
		label: 'a Retry-After longer than Max Server-Requested Delay',
		handler: slowDown,
		parameters: {},
		headline: new RegExp(`^The server asked to wait 1 min 30 s \\(retry-after\\), more than Max Server-Requested Delay \\(1 min\\); last response 429 Too Many Requests; another try is allowed from ${ISO}$`),
	},
	{
		reason: 'retry-after-too-long',
		label: 'the API paused by an earlier Retry-After (not sent)',
		before: { handler: slowDown, parameters: {} },
		handler: slowDown,
		parameters: {},
		headline: new RegExp(`^Not sent: The API paused all requests: for 1 min 30 s it asked to wait \\(retry-after\\) \\(${ISO}\\), more than Max Server-Requested Delay \\(1 min\\)$`),
	},
	{
		reason: 'not-safe-to-retry',
		label: 'a POST without an idempotency key whose connection dropped',
		handler: () => ({ drop: true }),
		parameters: { method: 'POST' },
		headline: /^Not retried: POST is not idempotent and no idempotency key is sent: the connection failed after the request was sent, so the server may have processed it\. Set an Idempotency Key, or enable "Retry Non-Idempotent Requests" if the API tolerates duplicates$/,
	},
	{
		reason: 'api-held',
		label: 'the API held after an outage (not sent)',
		before: { handler: unavailable, parameters: { maxAttempts: 1, ...holdsAtOnce } },
		handler: unavailable,
		parameters: { maxAttempts: 1, retryOptions: { totalDeadline: 500 }, ...holdsAtOnce },
		headline: new RegExp(`^Not sent: The API looks down: requests are held while a probe finds out when it is back; the next probe \\(${ISO}\\) comes after the total deadline$`),
	},
	{
		reason: 'retry-budget-exhausted',
		label: 'no retry budget',
		handler: unavailable,
		parameters: { sharedLimits: { budgetPercent: 0, budgetMinRetries: 0 } },
		headline: /^Stopped after 1 attempt: The retry budget of the API allows no retry/,
	},
	{
		reason: 'not-done-by-deadline',
		label: 'a job polled until the deadline',
		handler: () => ({ status: 200, body: { status: 'pending' } }),
		parameters: { retryWhen: '={{ $response.body.status === "pending" }}', retryOptions: { totalDeadline: 5000 } },
		headline: new RegExp(`^Gave up after \\d+ attempts in .+: not done: the next poll \\(in .+\\) would start after the total deadline; last response 200 OK met Retry When; another try is allowed from ${ISO}$`),
	},
	{
		reason: 'final-status',
		label: 'a 429 that no wait fixes (quota spent)',
		handler: () => ({ status: 429, statusText: 'Too Many Requests', body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } }),
		parameters: {},
		headline: /^Response 429 Too Many Requests is final: /,
	},
	{
		reason: 'final-status',
		label: 'a 503 left out of Retry On Status Codes',
		handler: unavailable,
		parameters: { retryOnStatusCodes: '500' },
		headline: /^Response 503 Service Unavailable is final: its status is not in Retry On Status Codes$/,
	},
	{
		reason: 'final-status',
		label: 'a 404 (HTTP Request headline stays: the request must change)',
		handler: () => ({ status: 404, statusText: 'Not Found', body: { message: 'no such order' } }),
		parameters: {},
		headline: /^404 - "\{\\"message\\":\\"no such order\\"\}"$/,
		thrownHeadline: /^The resource you are requesting could not be found$/,
	},
	{
		reason: 'not-retryable-error',
		label: 'a redirect loop (HTTP Request headline stays)',
		handler: () => ({ status: 302, headers: { location: '/again' } }),
		parameters: { options: { redirect: { redirect: { maxRedirects: 2 } } } },
		headline: /^Maximum number of redirects exceeded$/,
		thrownHeadline: /^Maximum number of redirects exceeded$/,
	},
];

/** Runs the case's request (after its `before` run, on the same controller and clock) with or without an error output. */
async function runCase(c: HeadlineCase, onError: 'continueErrorOutput' | undefined) {
	const upstream = await server((req, n) => (beforeDone ? c.handler(req, n) : (c.before?.handler ?? c.handler)(req, n)));
	let beforeDone = c.before === undefined;
	const runtime = createVirtualRuntime();
	const store = new MemoryStateStore();
	if (c.before) {
		await runHttp(httpWorkflow({ url: `${upstream.url}/first`, ...c.before.parameters }, { onError: 'continueErrorOutput' }), [{ json: {} }], runtime, { store });
		beforeDone = true;
	}
	return await runHttp(httpWorkflow({ url: `${upstream.url}/item`, ...c.parameters }, onError ? { onError } : {}), [{ json: { orderId: 'A-1' } }], runtime, { store });
}

describe.each(CASES)('$reason: $label', (c) => {
	it('the error item says it: message, reason, what HTTP Request gives beside, and the story as lines', async () => {
		const run = await runCase(c, 'continueErrorOutput');
		const [item] = run.jsonOf('HTTP', 1);
		const error = item.error as IDataObject;
		const story = error._retry as unknown as RetryStory;
		expect(error.reason).toBe(c.reason);
		expect(error.message).toMatch(c.headline);
		expect(String(error.message)).not.toMatch(FOREIGN_ADVICE);
		// the story's fields, then the same story as lines, one per attempt
		const { lines, ...fields } = story;
		expect(lines).toEqual(storyLines(fields));
		expect(lines!.filter((line) => /^\d+\. /.test(line))).toHaveLength(story.history.length);
		// HTTP Request's fields stay: axios' mark, and for a status its code and response
		expect(error.isAxiosError).toBe(true);
		const last = story.history.at(-1);
		if (last?.status !== undefined && story.history.length > 0) expect(error).toMatchObject({ status: last.status, statusCode: last.status, response: { status: last.status } });
		expect(item.orderId).toBe('A-1');
	});

	it('the thrown error says it: headline, what to do, then the story one line per attempt, in text and in the editor', async () => {
		const run = await runCase(c, undefined);
		expect(run.status).toBe('error');
		const error = run.error as unknown as { message: string; description: string; httpCode?: string | null; context: { descriptionTemplate?: string } };
		expect(error.message).toMatch(c.thrownHeadline ?? c.headline);
		const lines = error.description.split('\n');
		// the node's account leads: its headline, or, where the headline is HTTP Request's, its own stop summary, then what to do
		const advice = c.thrownHeadline ? 1 : 0;
		if (c.thrownHeadline) expect(lines[0]).toMatch(/ is final: | is not a transient failure$/);
		expect(lines[advice]).toMatch(/^What to do: /);
		expect(lines).toContain('');
		expect(lines.slice(lines.indexOf('') + 1)[0]).toMatch(/^Retry story: /);
		expect(`${error.message}\n${error.description}`).not.toMatch(FOREIGN_ADVICE);
		// the editor renders the template (HTML) instead of the description: the same lines, a <br> between each two
		expect(error.context.descriptionTemplate?.split('<br>')).toHaveLength(lines.length);
	});
});

describe('the editor template of a description', () => {
	it("shows a server's words as written: escaped, never read as HTML", async () => {
		const upstream = await server(() => ({ status: 503, statusText: 'Service Unavailable', body: { message: '<b>down</b> & "out"' } }));
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/x`, maxAttempts: 1 }), [{ json: {} }], createVirtualRuntime());
		const error = run.error as unknown as { description: string; context: { descriptionTemplate: string } };
		expect(error.description.split('\n')[1]).toBe('The server\'s answer: <b>down</b> & "out"');
		expect(error.context.descriptionTemplate.split('<br>')[1]).toBe('The server&#39;s answer: &lt;b&gt;down&lt;/b&gt; &amp; &quot;out&quot;');
	});
});

describe('the story as lines on a success item (Retry Story: On Every Item)', () => {
	it('comes after the story fields, which keep their names and values', async () => {
		const upstream = await server((_req, n) => (n < 2 ? { status: 503, statusText: 'Service Unavailable' } : { status: 200, body: { ok: true } }));
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/x` }), [{ json: {} }], createVirtualRuntime());
		const story = run.jsonOf('HTTP')[0]._retry as unknown as RetryStory;
		expect(Object.keys(story).at(-1)).toBe('lines');
		expect(story).toMatchObject({ attempts: 3, stoppedBecause: 'success' });
		expect(story.lines).toEqual([
			expect.stringMatching(/^Retry story: 3 attempts of at most 5, .+ in all$/),
			expect.stringMatching(/^1\. .+: 503 Service Unavailable in .+; then waited .+, backoff$/),
			expect.stringMatching(/^2\. .+: 503 Service Unavailable in .+; then waited .+, backoff$/),
			expect.stringMatching(/^3\. .+: 200 OK in .+$/),
			story.summary,
		]);
	});
});
