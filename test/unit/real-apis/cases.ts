/**
 * What real APIs answer when they fail, taken from the official SDKs' code and test suites and from
 * the APIs' documentation: each row is a response (status, headers, body) with its source and what
 * the node must do with it. test/unit/real-apis.test.ts runs every row through the one judgement of
 * a response (server-signals.ts) and the one decision (decide.ts), and writes the table of
 * docs/real-apis.md ("What real APIs say") from the rows it asserted.
 */

/** The instant every row is judged at (a Thursday, mid-month). */
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const epoch = (inSeconds: number) => String(Math.floor(NOW / 1000) + inSeconds);
const httpDate = (inSeconds: number) => new Date(NOW + inSeconds * 1000).toUTCString();

export type Outcome =
	/** Retried; the wait is at least `atLeastMs`, and comes from `by` (a header or body field, or the backoff). */
	| { retry: true; atLeastMs: number; by: string }
	| { retry: false; stop: 'final-status' | 'not-safe-to-retry'; because?: RegExp }
	/** No wait: the error output at once, with the server's wait as retryAt. */
	| { retry: false; stop: 'retry-after-too-long'; retryAfterMs: number };

export interface ApiCase {
	api: string;
	/** The response, for the docs. */
	response: string;
	status: number;
	headers?: Record<string, string | string[]>;
	body?: unknown;
	/** Default GET; POST is sent without an idempotency key. */
	method?: 'GET' | 'POST';
	/** Obey Server Retry Hints off. */
	hintsOff?: boolean;
	expect: Outcome;
	source: string;
}

/** The backoff of these rows: 100 ms before the first retry, no jitter (the test's policy). */
export const BACKOFF_MS = 100;
const BACKOFF: Outcome = { retry: true, atLeastMs: BACKOFF_MS, by: 'backoff' };
const waits = (seconds: number, by: string): Outcome => ({ retry: true, atLeastMs: seconds * 1000, by });
const FINAL: Outcome = { retry: false, stop: 'final-status' };
const finalBecause = (because: RegExp): Outcome => ({ retry: false, stop: 'final-status', because });
const tooLong = (retryAfterMs: number): Outcome => ({ retry: false, stop: 'retry-after-too-long', retryAfterMs });
const NOT_SAFE: Outcome = { retry: false, stop: 'not-safe-to-retry' };

const OPENAI_SDK = 'openai-node `src/client.ts` (shouldRetry, retryRequest)';
const OPENAI_SDK_TESTS = 'openai-node `tests/index.test.ts`';
const OPENAI_QUOTA = 'https://help.openai.com/en/articles/5955604';
const ANTHROPIC_SDK = 'anthropic-sdk-typescript `src/client.ts` (shouldRetry)';
const ANTHROPIC_ERRORS = 'https://learn.microsoft.com/microsoft-cloud/dev/dev-proxy/concepts/anthropic-529-overloaded-error (quoting Anthropic\'s error docs)';
const STRIPE_SDK = 'stripe-node `src/RequestSender.ts` (_shouldRetry)';
const STRIPE_SDK_TESTS = 'stripe-node `test/RequestSender.spec.ts`';
const OCTOKIT = 'octokit/plugin-throttling.js `src/index.ts`';
const OCTOKIT_TESTS = 'octokit/plugin-throttling.js `test/retry.test.ts`';
const GITHUB_DOCS = 'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api';
const GOOGLE_DRIVE = 'https://developers.google.com/drive/api/guides/limits';
const GRAPH = 'https://learn.microsoft.com/graph/throttling';
const GRAPH_503 = 'https://learn.microsoft.com/graph/errors';
const SLACK = 'https://api.slack.com/apis/rate-limits';
const SHOPIFY = 'https://shopify.dev/docs/api/admin-rest/usage/rate-limits';
const NOTION_LIMITS = 'https://developers.notion.com/reference/request-limits';
const NOTION_CODES = 'https://developers.notion.com/reference/status-codes';
const ZENDESK = 'https://developer.zendesk.com/api-reference/introduction/rate-limits';
const ZENDESK_HEADERS = 'https://developer.zendesk.com/documentation/api-basics/best-practices/best-practices-for-avoiding-rate-limiting';
const HUBSPOT = 'https://developers.hubspot.com/docs/api/usage-details (429 body), https://developers.hubspot.com/apisbytier (daily reset)';
const DISCORD = 'https://docs.discord.com/developers/topics/rate-limits';
const DROPBOX = 'https://dropbox.github.io/dropbox-sdk-java/api-docs/v5.1.0/com/dropbox/core/v2/auth/RateLimitError.html (retry_after), https://developers.dropbox.com/dbx-performance-guide';
const OPENAI_LIMITS = 'https://platform.openai.com/docs/guides/rate-limits (rate limits in headers)';
const ANTHROPIC_LIMITS = 'https://docs.anthropic.com/en/api/rate-limits (response headers)';
const TELEGRAM = 'https://core.telegram.org/bots/api#responseparameters';
const AIRTABLE = 'https://support.airtable.com/docs/managing-api-call-limits-in-airtable';
const JIRA = 'https://developer.atlassian.com/cloud/jira/platform/rate-limiting';
const MONDAY_ERRORS = 'https://developer.monday.com/api-reference/docs/error-handling';
const MONDAY_COMPLEXITY = 'https://developer.monday.com/api-reference/changelog/hotfix-updated-complexity-budget-exhausted-error';
const MONDAY_DAILY = 'https://support.monday.com/hc/en-us/articles/26471164460690-API-Rate-Limits';
const SALESFORCE = 'https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-platform-api.html';
const GOT = 'got `source/core/calculate-retry-delay.ts`, `source/core/index.ts`';
const KY = 'ky `source/core/Ky.ts`, `source/core/retry-timing.ts`';
const RFC_413 = 'RFC 9110 section 15.5.14; ' + GOT + '; ' + KY;
const HEROKU = 'https://devcenter.heroku.com/articles/request-timeout';
const AZURE_SDK = 'azure-sdk-for-js `sdk/core/core-rest-pipeline/src/retryStrategies/throttlingRetryStrategy.ts` (retry-after-ms, x-ms-retry-after-ms, Retry-After)';
const AZURE_OPENAI = 'https://learn.microsoft.com/azure/ai-services/openai/quotas-limits';
const GOOGLE_RETRY_INFO = 'googleapis `google/rpc/error_details.proto` (RetryInfo.retry_delay); https://ai.google.dev/gemini-api/docs/troubleshooting (429 RESOURCE_EXHAUSTED)';
const GEMINI_429 = (retryDelay: unknown) => ({
	error: {
		code: 429,
		message: 'You exceeded your current quota, please check your plan and billing details. Please retry in 10.314s.',
		status: 'RESOURCE_EXHAUSTED',
		details: [
			{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] },
			{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
		],
	},
});

const GITHUB_SECONDARY = { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits' };
const ANTHROPIC_OVERLOADED = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
const OPENAI_QUOTA_BODY = { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };

export const API_CASES: ApiCase[] = [
	// OpenAI
	{ api: 'OpenAI', response: '429 `Retry-After: 0.1`', status: 429, headers: { 'retry-after': '0.1' }, expect: waits(0.1, 'retry-after'), source: OPENAI_SDK_TESTS },
	{ api: 'OpenAI', response: '429 `retry-after-ms: 10`', status: 429, headers: { 'retry-after-ms': '10' }, expect: { retry: true, atLeastMs: 10, by: 'backoff' }, source: OPENAI_SDK_TESTS },
	{ api: 'OpenAI', response: '500 `x-should-retry: false`', status: 500, headers: { 'x-should-retry': 'false' }, expect: finalBecause(/the server said not to retry it \(x-should-retry: false\)/), source: OPENAI_SDK },
	{ api: 'OpenAI', response: '400 `x-should-retry: true`', status: 400, headers: { 'x-should-retry': 'true' }, expect: BACKOFF, source: OPENAI_SDK },
	{ api: 'OpenAI', response: '409 (the SDK retries it as a lock timeout)', status: 409, expect: FINAL, source: OPENAI_SDK },
	{ api: 'OpenAI', response: '408', status: 408, expect: BACKOFF, source: OPENAI_SDK },
	{ api: 'OpenAI', response: '503', status: 503, expect: BACKOFF, source: OPENAI_SDK },
	{ api: 'OpenAI', response: 'POST, 429 `Retry-After: 2`', status: 429, method: 'POST', headers: { 'retry-after': '2' }, body: { error: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' } }, expect: waits(2, 'retry-after'), source: OPENAI_SDK },
	{ api: 'OpenAI', response: '429 `error.code: insufficient_quota`', status: 429, body: OPENAI_QUOTA_BODY, expect: finalBecause(/quota is spent that waiting does not restore \(error.code: insufficient_quota\)/), source: OPENAI_QUOTA },
	{ api: 'OpenAI', response: '429 `error.code: organization_spend_limit_exceeded`', status: 429, body: { error: { type: 'insufficient_quota', code: 'organization_spend_limit_exceeded', message: 'Spend limit reached' } }, expect: finalBecause(/error.code: organization_spend_limit_exceeded/), source: OPENAI_QUOTA },
	{ api: 'OpenAI', response: '429 `error.code: credit_balance_exhausted`', status: 429, body: { error: { type: 'insufficient_quota', code: 'credit_balance_exhausted', message: 'No credits' } }, expect: finalBecause(/credit_balance_exhausted/), source: OPENAI_QUOTA },
	{ api: 'OpenAI', response: 'POST, 500 (no key)', status: 500, method: 'POST', expect: NOT_SAFE, source: OPENAI_SDK },
	{ api: 'OpenAI', response: 'POST, 429 (no key)', status: 429, method: 'POST', expect: BACKOFF, source: OPENAI_SDK },
	// OpenAI's rate-limit headers as the guide shows them: resets as durations (`1s`, `6m0s`)
	{
		api: 'OpenAI',
		response: '429 `x-ratelimit-remaining-requests: 0`, `x-ratelimit-reset-requests: 1s`, `x-ratelimit-reset-tokens: 6m0s` (no Retry-After)',
		status: 429,
		headers: {
			'x-ratelimit-limit-requests': '60',
			'x-ratelimit-limit-tokens': '150000',
			'x-ratelimit-remaining-requests': '0',
			'x-ratelimit-remaining-tokens': '149984',
			'x-ratelimit-reset-requests': '1s',
			'x-ratelimit-reset-tokens': '6m0s',
		},
		expect: waits(1, 'x-ratelimit-reset-requests'),
		source: OPENAI_LIMITS,
	},
	{
		api: 'OpenAI',
		response: '429 `x-ratelimit-remaining-tokens: 0`, `x-ratelimit-reset-tokens: 6m0s` (no Retry-After)',
		status: 429,
		headers: {
			'x-ratelimit-limit-requests': '60',
			'x-ratelimit-limit-tokens': '150000',
			'x-ratelimit-remaining-requests': '59',
			'x-ratelimit-remaining-tokens': '0',
			'x-ratelimit-reset-requests': '1s',
			'x-ratelimit-reset-tokens': '6m0s',
		},
		expect: tooLong(360_000),
		source: OPENAI_LIMITS,
	},
	{
		api: 'OpenAI',
		response: '429 for tokens: `x-ratelimit-remaining-tokens: 2000` of 60,000 (`reset-tokens: 12s`), 480 of 500 requests left (`reset-requests: 58s`), no Retry-After',
		status: 429,
		method: 'POST',
		headers: {
			'x-ratelimit-limit-requests': '500',
			'x-ratelimit-limit-tokens': '60000',
			'x-ratelimit-remaining-requests': '480',
			'x-ratelimit-remaining-tokens': '2000',
			'x-ratelimit-reset-requests': '58s',
			'x-ratelimit-reset-tokens': '12s',
		},
		body: { error: { type: 'tokens', code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-4o-mini on tokens per min (TPM): Limit 60000, Used 58000, Requested 5000.' } },
		expect: waits(12, 'x-ratelimit-reset-tokens'),
		source: OPENAI_LIMITS,
	},
	// Azure OpenAI and Azure's services
	{ api: 'Azure OpenAI', response: '429 `x-ms-retry-after-ms: 1500`, `Retry-After: 2`', status: 429, headers: { 'x-ms-retry-after-ms': '1500', 'retry-after': '2' }, expect: waits(1.5, 'x-ms-retry-after-ms'), source: `${AZURE_SDK}; ${AZURE_OPENAI}` },
	{ api: 'Azure OpenAI', response: '429 `retry-after-ms: 800` and `x-ms-retry-after-ms: 1500`', status: 429, headers: { 'retry-after-ms': '800', 'x-ms-retry-after-ms': '1500' }, expect: { retry: true, atLeastMs: 800, by: 'retry-after-ms' }, source: AZURE_SDK },
	// Google Gemini (and Google Cloud APIs)
	{ api: 'Google Gemini', response: '429 `RESOURCE_EXHAUSTED`, body `google.rpc.RetryInfo` `retryDelay: "10s"`', status: 429, body: GEMINI_429('10s'), expect: waits(10, 'body.error.details[1].retryDelay'), source: GOOGLE_RETRY_INFO },
	{ api: 'Google Gemini', response: '429, `retryDelay: "10.314s"` (fractions)', status: 429, body: GEMINI_429('10.314s'), expect: waits(10.314, 'body.error.details[1].retryDelay'), source: GOOGLE_RETRY_INFO },
	{ api: 'Google Gemini', response: '429, `retryDelay: { seconds: 3, nanos: 500000000 }`', status: 429, body: GEMINI_429({ seconds: 3, nanos: 500_000_000 }), expect: waits(3.5, 'body.error.details[1].retryDelay'), source: GOOGLE_RETRY_INFO },
	{ api: 'Google Gemini', response: '429, `retryDelay: "5m"` (not a Duration: ignored)', status: 429, body: GEMINI_429('5m'), expect: BACKOFF, source: GOOGLE_RETRY_INFO },
	// Anthropic
	{ api: 'Anthropic', response: 'POST, 529 `overloaded_error` (no key)', status: 529, method: 'POST', body: ANTHROPIC_OVERLOADED, expect: BACKOFF, source: `${ANTHROPIC_SDK}; ${ANTHROPIC_ERRORS}` },
	{ api: 'Anthropic', response: '529 `retry-after: 5`', status: 529, headers: { 'retry-after': '5' }, body: ANTHROPIC_OVERLOADED, expect: waits(5, 'retry-after'), source: ANTHROPIC_ERRORS },
	{ api: 'Anthropic', response: 'POST, 429 `rate_limit_error`, `retry-after: 20`', status: 429, method: 'POST', headers: { 'retry-after': '20' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }, expect: waits(20, 'retry-after'), source: ANTHROPIC_ERRORS },
	{
		api: 'Anthropic',
		response: '429 `error.details.error_code: enforced_spend_limit_reached` (monthly cap)',
		status: 429,
		body: { type: 'error', error: { type: 'rate_limit_error', message: 'Spend limit reached', details: { error_code: 'enforced_spend_limit_reached' } } },
		expect: tooLong(Date.UTC(2026, 1, 1) - NOW),
		source: ANTHROPIC_ERRORS,
	},
	{ api: 'Anthropic', response: '500 `x-should-retry: false`', status: 500, headers: { 'x-should-retry': 'false' }, expect: finalBecause(/x-should-retry: false/), source: ANTHROPIC_SDK },
	{ api: 'Anthropic', response: '409 `x-should-retry: true`', status: 409, headers: { 'x-should-retry': 'true' }, expect: BACKOFF, source: ANTHROPIC_SDK },
	{ api: 'Anthropic', response: '529, Obey Server Retry Hints off', status: 529, hintsOff: true, body: ANTHROPIC_OVERLOADED, expect: BACKOFF, source: ANTHROPIC_SDK },
	// Anthropic's rate-limit headers: resets as RFC 3339 instants
	{
		api: 'Anthropic',
		response: '429 `anthropic-ratelimit-tokens-remaining: 0`, `anthropic-ratelimit-tokens-reset` (RFC 3339) in 20 s (no retry-after)',
		status: 429,
		headers: {
			'anthropic-ratelimit-requests-limit': '50',
			'anthropic-ratelimit-requests-remaining': '49',
			'anthropic-ratelimit-requests-reset': new Date(NOW + 1_000).toISOString().replace('.000Z', 'Z'),
			'anthropic-ratelimit-tokens-limit': '40000',
			'anthropic-ratelimit-tokens-remaining': '0',
			'anthropic-ratelimit-tokens-reset': new Date(NOW + 20_000).toISOString().replace('.000Z', 'Z'),
		},
		expect: waits(20, 'anthropic-ratelimit-tokens-reset'),
		source: ANTHROPIC_LIMITS,
	},
	// Stripe
	{ api: 'Stripe', response: '409 (no header; the SDK retries it)', status: 409, body: { error: { message: 'Conflict' } }, expect: FINAL, source: STRIPE_SDK_TESTS },
	{ api: 'Stripe', response: '409 `Stripe-Should-Retry: true` (a lock timeout)', status: 409, headers: { 'stripe-should-retry': 'true' }, expect: BACKOFF, source: STRIPE_SDK },
	{ api: 'Stripe', response: '500 `Stripe-Should-Retry: false`', status: 500, headers: { 'Stripe-Should-Retry': 'false' }, body: { error: { type: 'api_error' } }, expect: finalBecause(/stripe-should-retry: false/), source: STRIPE_SDK_TESTS },
	{ api: 'Stripe', response: '400 `Stripe-Should-Retry: true`', status: 400, headers: { 'stripe-should-retry': 'true' }, body: { error: { type: 'your_fault' } }, expect: BACKOFF, source: STRIPE_SDK_TESTS },
	{ api: 'Stripe', response: '400 `invalid_request_error`', status: 400, body: { error: { type: 'invalid_request_error' } }, expect: FINAL, source: STRIPE_SDK_TESTS },
	{ api: 'Stripe', response: '503', status: 503, expect: BACKOFF, source: STRIPE_SDK_TESTS },
	{ api: 'Stripe', response: 'POST, 429 (no key; the SDK does not retry a 429)', status: 429, method: 'POST', body: { error: { message: 'message' } }, expect: BACKOFF, source: STRIPE_SDK_TESTS },
	{ api: 'Stripe', response: '500 `Stripe-Should-Retry: true` and `x-should-retry: false`', status: 500, headers: { 'stripe-should-retry': 'true', 'x-should-retry': 'false' }, expect: finalBecause(/x-should-retry: false/), source: 'no API sends both: our decision (a "no" wins)' },
	// GitHub
	{ api: 'GitHub', response: '403 `x-ratelimit-remaining: 0`, `x-ratelimit-reset` in 30 s (primary limit)', status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch(30) }, body: { message: 'API rate limit exceeded for installation ID 1.' }, expect: waits(30, 'x-ratelimit-reset'), source: `${GITHUB_DOCS}; ${OCTOKIT}` },
	{ api: 'GitHub', response: 'POST, 403 `x-ratelimit-remaining: 0`, reset in 30 s (no key)', status: 403, method: 'POST', headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch(30) }, expect: waits(30, 'x-ratelimit-reset'), source: GITHUB_DOCS },
	{ api: 'GitHub', response: '403 `x-ratelimit-remaining: 0`, reset in 50 min', status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch(3000) }, expect: tooLong(3_000_000), source: GITHUB_DOCS },
	{ api: 'GitHub', response: '429 `x-ratelimit-remaining: 0`, reset in 30 s', status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch(30) }, expect: waits(30, 'x-ratelimit-reset'), source: OCTOKIT_TESTS },
	{ api: 'GitHub', response: '403 secondary limit, `retry-after: 1`', status: 403, headers: { 'retry-after': '1' }, body: GITHUB_SECONDARY, expect: waits(1, 'retry-after'), source: OCTOKIT_TESTS },
	{ api: 'GitHub', response: '403 secondary limit, no `retry-after`', status: 403, body: GITHUB_SECONDARY, expect: waits(60, 'body.message'), source: `${GITHUB_DOCS} ("wait for at least one minute"); ${OCTOKIT} (fallbackSecondaryRateRetryAfter)` },
	{ api: 'GitHub', response: '429 secondary limit, `retry-after: 2`', status: 429, headers: { 'retry-after': '2' }, body: GITHUB_SECONDARY, expect: waits(2, 'retry-after'), source: OCTOKIT_TESTS },
	{ api: 'GitHub', response: '403 `Resource not accessible by integration`, `x-ratelimit-remaining: 4999`', status: 403, headers: { 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': epoch(3000) }, body: { message: 'Resource not accessible by integration' }, expect: FINAL, source: OCTOKIT },
	{ api: 'GitHub', response: '404 `retry-after: 3`', status: 404, headers: { 'retry-after': '3' }, body: { message: 'Nope!' }, expect: FINAL, source: OCTOKIT_TESTS },
	{ api: 'GitHub', response: '403 primary limit, Obey Server Retry Hints off', status: 403, hintsOff: true, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch(30) }, expect: FINAL, source: GITHUB_DOCS },
	// Google
	{ api: 'Google APIs', response: '403 `reason: userRateLimitExceeded`', status: 403, body: { error: { code: 403, message: 'User Rate Limit Exceeded', errors: [{ domain: 'usageLimits', reason: 'userRateLimitExceeded' }] } }, expect: BACKOFF, source: GOOGLE_DRIVE },
	{ api: 'Google APIs', response: '403 `reason: rateLimitExceeded`', status: 403, body: { error: { code: 403, message: 'Rate Limit Exceeded', errors: [{ domain: 'usageLimits', reason: 'rateLimitExceeded' }] } }, expect: BACKOFF, source: GOOGLE_DRIVE },
	{ api: 'Google APIs', response: '429 Too many requests', status: 429, expect: BACKOFF, source: GOOGLE_DRIVE },
	{ api: 'Google APIs', response: '403 `reason: insufficientPermissions`', status: 403, body: { error: { code: 403, message: 'Insufficient Permission', errors: [{ domain: 'global', reason: 'insufficientPermissions' }] } }, expect: FINAL, source: GOOGLE_DRIVE },
	// Microsoft Graph
	{ api: 'Microsoft Graph', response: '429 `Retry-After: 41` (`activityLimitReached`)', status: 429, headers: { 'retry-after': '41' }, body: { error: { code: 'activityLimitReached', message: 'The request has been throttled' } }, expect: waits(41, 'retry-after'), source: GRAPH },
	{ api: 'Microsoft Graph', response: '429 `Retry-After: 315`', status: 429, headers: { 'retry-after': '315' }, expect: tooLong(315_000), source: GRAPH },
	{ api: 'Microsoft Graph', response: '503 `Retry-After: 10`', status: 503, headers: { 'retry-after': '10' }, expect: waits(10, 'retry-after'), source: GRAPH_503 },
	// Slack
	{ api: 'Slack', response: '429 `Retry-After: 30`', status: 429, headers: { 'retry-after': '30' }, expect: waits(30, 'retry-after'), source: SLACK },
	// Shopify
	{ api: 'Shopify', response: '429 `Retry-After: 2.0`', status: 429, headers: { 'retry-after': '2.0', 'x-shopify-shop-api-call-limit': '40/40' }, expect: waits(2, 'retry-after'), source: SHOPIFY },
	{ api: 'Shopify', response: '429 `X-Shopify-Shop-Api-Call-Limit: 40/40` only', status: 429, headers: { 'x-shopify-shop-api-call-limit': '40/40' }, expect: BACKOFF, source: SHOPIFY },
	// Notion
	{ api: 'Notion', response: '429 `rate_limited`, `Retry-After: 3`', status: 429, headers: { 'retry-after': '3' }, body: { object: 'error', status: 429, code: 'rate_limited', message: 'Rate limited' }, expect: waits(3, 'retry-after'), source: NOTION_LIMITS },
	{ api: 'Notion', response: 'POST, 529 `service_overload` (no key)', status: 529, method: 'POST', body: { object: 'error', status: 529, code: 'service_overload' }, expect: BACKOFF, source: NOTION_LIMITS },
	{ api: 'Notion', response: '409 `conflict_error`', status: 409, body: { object: 'error', status: 409, code: 'conflict_error' }, expect: FINAL, source: NOTION_CODES },
	{ api: 'Notion', response: '503 `service_unavailable`', status: 503, body: { object: 'error', status: 503, code: 'service_unavailable' }, expect: BACKOFF, source: NOTION_CODES },
	// Zendesk
	{ api: 'Zendesk', response: '429 `Retry-After: 41`', status: 429, headers: { 'retry-after': '41' }, expect: waits(41, 'retry-after'), source: ZENDESK },
	{ api: 'Zendesk', response: '429 `zendesk-ratelimit-tickets-index: total=100; remaining=0; resets=41`', status: 429, headers: { 'zendesk-ratelimit-tickets-index': 'total=100; remaining=0; resets=41' }, expect: waits(41, 'zendesk-ratelimit-tickets-index'), source: ZENDESK_HEADERS },
	{ api: 'Zendesk', response: '429 `ratelimit-remaining: 0`, `ratelimit-reset: 41`', status: 429, headers: { 'ratelimit-limit': '700', 'ratelimit-remaining': '0', 'ratelimit-reset': '41' }, expect: waits(41, 'ratelimit-reset'), source: ZENDESK_HEADERS },
	// HubSpot
	{ api: 'HubSpot', response: '429 `policyName: DAILY`', status: 429, body: { status: 'error', message: 'You have reached your daily limit.', errorType: 'RATE_LIMIT', policyName: 'DAILY' }, expect: tooLong(24 * 3600_000), source: HUBSPOT },
	{ api: 'HubSpot', response: '429 `policyName: TEN_SECONDLY_ROLLING`', status: 429, body: { status: 'error', message: 'You have reached your ten_secondly_rolling limit.', errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' }, expect: BACKOFF, source: HUBSPOT },
	// Discord
	{ api: 'Discord', response: '429 body `retry_after: 1.5`', status: 429, body: { message: 'You are being rate limited.', retry_after: 1.5, global: false }, expect: waits(1.5, 'body.retry_after'), source: DISCORD },
	{ api: 'Discord', response: '429 `X-RateLimit-Remaining: 0`, `X-RateLimit-Reset-After: 1.234`', status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.234' }, expect: waits(1.234, 'x-ratelimit-reset-after'), source: DISCORD },
	{ api: 'Discord', response: '429 `Retry-After: 2` and body `retry_after: 1.5`', status: 429, headers: { 'retry-after': '2' }, body: { message: 'You are being rate limited.', retry_after: 1.5, global: true }, expect: waits(2, 'retry-after'), source: DISCORD },
	{ api: 'Discord', response: '429 body `retry_after: 64.57`', status: 429, body: { message: 'You are being rate limited.', retry_after: 64.57, global: false }, expect: tooLong(64_570), source: DISCORD },
	// Dropbox: a 429's body is a RateLimitError, `retry_after` in seconds (Retry-After is sent as well)
	{
		api: 'Dropbox',
		response: '429 body `error.retry_after: 10` (`too_many_write_operations`)',
		status: 429,
		body: { error_summary: 'too_many_write_operations/', error: { reason: { '.tag': 'too_many_write_operations' }, retry_after: 10 } },
		expect: waits(10, 'body.error.retry_after'),
		source: DROPBOX,
	},
	{
		api: 'Dropbox',
		response: '429 `Retry-After: 15` and body `error.retry_after: 10`',
		status: 429,
		headers: { 'retry-after': '15' },
		body: { error_summary: 'too_many_requests/', error: { reason: { '.tag': 'too_many_requests' }, retry_after: 10 } },
		expect: waits(15, 'retry-after'),
		source: DROPBOX,
	},
	// Telegram
	{ api: 'Telegram', response: '429 body `parameters.retry_after: 5`', status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 5', parameters: { retry_after: 5 } }, expect: waits(5, 'body.parameters.retry_after'), source: TELEGRAM },
	// Airtable
	{ api: 'Airtable', response: '429 (no header; Airtable asks for 30 s)', status: 429, expect: BACKOFF, source: AIRTABLE },
	// Jira
	{ api: 'Jira Cloud', response: '429 `Retry-After: 5`, `X-RateLimit-Reset: 2026-01-15T12:00Z`', status: 429, headers: { 'retry-after': '5', 'x-ratelimit-reset': '2026-01-15T12:00Z' }, expect: waits(5, 'retry-after'), source: JIRA },
	{ api: 'Jira Cloud', response: '503 `Retry-After: 10` (a resource limit)', status: 503, headers: { 'retry-after': '10' }, expect: waits(10, 'retry-after'), source: JIRA },
	// monday.com
	{
		api: 'monday.com',
		response: '429 `extensions.code: COMPLEXITY_BUDGET_EXHAUSTED`, `retry_in_seconds: 7`',
		status: 429,
		body: { errors: [{ message: 'Complexity budget exhausted', extensions: { code: 'COMPLEXITY_BUDGET_EXHAUSTED', retry_in_seconds: 7 } }] },
		expect: waits(7, 'body.errors[0].extensions.retry_in_seconds'),
		source: MONDAY_COMPLEXITY,
	},
	{ api: 'monday.com', response: '429 `Retry-After: 30` (minute limit)', status: 429, headers: { 'retry-after': '30' }, body: { errors: [{ message: 'Rate Limit Exceeded' }] }, expect: waits(30, 'retry-after'), source: MONDAY_ERRORS },
	{ api: 'monday.com', response: '429 `extensions.code: DAILY_LIMIT_EXCEEDED`', status: 429, body: { errors: [{ message: 'Daily limit exceeded', extensions: { code: 'DAILY_LIMIT_EXCEEDED' } }] }, expect: tooLong(12 * 3600_000), source: MONDAY_DAILY },
	// Salesforce
	{ api: 'Salesforce', response: '403 `REQUEST_LIMIT_EXCEEDED: TotalRequests Limit exceeded` (24-hour limit)', status: 403, body: [{ errorCode: 'REQUEST_LIMIT_EXCEEDED', message: 'TotalRequests Limit exceeded.' }], expect: FINAL, source: SALESFORCE },
	// HTTP itself, and what got and ky do
	{ api: 'any (RFC 9110)', response: '413 `Retry-After: 2`', status: 413, headers: { 'retry-after': '2' }, expect: waits(2, 'retry-after'), source: RFC_413 },
	{ api: 'any (RFC 9110)', response: 'POST, 413 `Retry-After: 2` (no key)', status: 413, method: 'POST', headers: { 'retry-after': '2' }, expect: waits(2, 'retry-after'), source: RFC_413 },
	{ api: 'any (RFC 9110)', response: '413 without Retry-After', status: 413, expect: FINAL, source: RFC_413 },
	{ api: 'any (RFC 9110)', response: '503 `Retry-After: 0`', status: 503, headers: { 'retry-after': '0' }, expect: BACKOFF, source: `${GOT} (0 is no wait: the backoff applies); ${OPENAI_SDK} (retries at once)` },
	{ api: 'Symfony rate limiter', response: '429 `X-RateLimit-Retry-After: 3`', status: 429, headers: { 'x-ratelimit-retry-after': '3' }, expect: waits(3, 'x-ratelimit-retry-after'), source: KY },
	{ api: 'Symfony rate limiter', response: '429 `X-RateLimit-Retry-After` an HTTP-date 4 s ahead', status: 429, headers: { 'x-ratelimit-retry-after': httpDate(4) }, expect: waits(4, 'x-ratelimit-retry-after'), source: KY },
	{ api: 'any gateway', response: 'POST, 503 (no key)', status: 503, method: 'POST', expect: NOT_SAFE, source: `${HEROKU} (the router answers 503 while the app goes on processing)` },
	{ api: 'OpenAI, Anthropic', response: '500 `x-should-retry: TRUE` (any case)', status: 500, headers: { 'x-should-retry': 'TRUE' }, expect: BACKOFF, source: OPENAI_SDK },
	{ api: 'OpenAI, Anthropic', response: '500 `x-should-retry: false`, Obey Server Retry Hints off', status: 500, hintsOff: true, headers: { 'x-should-retry': 'false' }, expect: BACKOFF, source: OPENAI_SDK },
	{ api: 'OpenAI, Anthropic', response: '400 `x-should-retry: yes` (not a hint)', status: 400, headers: { 'x-should-retry': 'yes' }, expect: FINAL, source: OPENAI_SDK },
];
