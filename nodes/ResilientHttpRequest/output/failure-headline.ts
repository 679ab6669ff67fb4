/**
 * The headline of an item that finally failed: the error's `message` (the error item's and the
 * thrown error's) and the description the editor shows under it. They are the node's own account
 * (what happened, what to do, then the retry story one line per attempt), never HTTP Request's
 * advice to retry automatically or to batch; HTTP Request's other error fields stay as they are.
 */
import type { NodeApiError } from 'n8n-workflow';
import { stopHeadline, whatToDo } from '../../shared/core/stop-messages';
import { storyLines, type RetryStory } from '../../shared/core/retry-story';

/**
 * Statuses whose HTTP Request texts advise what this node replaces (n8n 2.41): a 503's "consider
 * setting this node to retry automatically (in the node settings)", a 429's "Try spacing your
 * requests out using the batching settings under 'Options'".
 */
const HTTP_REQUEST_ADVISES_RETRY = new Set([429, 503]);

/**
 * Whether the headline is the node's: always after retries or a refusal to retry. For a request that
 * must change (a final status, an error that is not transient), HTTP Request's words for the status
 * ("Authorization failed - please check your credentials") already say what to do, and stay, unless
 * they advise a retry or batching.
 */
function ownsHeadline(story: RetryStory, status: number | undefined): boolean {
	if (story.stoppedBecause !== 'final-status' && story.stoppedBecause !== 'not-retryable-error') return true;
	return status !== undefined && HTTP_REQUEST_ADVISES_RETRY.has(status);
}

/** The error's message: the node's headline, or HTTP Request's where it stays. */
function headlineOf(story: RetryStory, httpRequestMessage: string, owned: boolean): string {
	return owned ? stopHeadline(story) : httpRequestMessage;
}

/**
 * What HTTP Request's description adds for the description's lines: the server's own words (a
 * body's `message`, say), labelled as its answer; nothing where it only repeats HTTP Request's
 * message (`503 - ""`, its 429 advice to batch).
 */
function serverWordsOf(httpRequestDescription: string | undefined, httpRequestMessage: string, answered: boolean): string | undefined {
	if (!httpRequestDescription || httpRequestDescription === httpRequestMessage) return undefined;
	return answered ? `The server's answer: ${httpRequestDescription}` : httpRequestDescription;
}

/**
 * The description as lines: what to do (after the node's account, when the headline is HTTP
 * Request's), the server's own words where HTTP Request's description has them, then the story.
 */
function descriptionLines(story: RetryStory, serverWords: string | undefined, owned: boolean): string[] {
	return [...(owned ? [] : [stopHeadline(story)]), whatToDo(story.stoppedBecause), ...(serverWords ? [serverWords] : []), '', ...storyLines(story)];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The lines as the editor's error view shows them one under the other: n8n's editor renders a
 * description as sanitized HTML (a line break in the text collapses into a space), and renders
 * `context.descriptionTemplate`, where set, instead of the description. The text is escaped, so
 * that a server's words show as written; the description itself stays plain text for expressions,
 * logs and alerts.
 */
function setDescription(error: NodeApiError, lines: string[]): void {
	error.description = lines.join('\n');
	error.context.descriptionTemplate = lines.map((line) => line.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])).join('<br>');
}

/**
 * Puts the headline on both errors of a failed item, built as HTTP Request builds them: the thrown
 * NodeApiError (message, description, the editor's template) and HTTP Request's error object that
 * the error item carries (its message only).
 */
export function headlineTheFailure(nodeError: NodeApiError, error: Error, story: RetryStory, status: number | undefined): void {
	const owned = ownsHeadline(story, status);
	const serverWords = serverWordsOf(nodeError.description ?? undefined, error.message, status !== undefined);
	nodeError.message = headlineOf(story, nodeError.message, owned);
	setDescription(nodeError, descriptionLines(story, serverWords, owned));
	error.message = headlineOf(story, error.message, owned);
}
