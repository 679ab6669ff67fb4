/**
 * A local OpenAI-compatible chat-completions API for the real-n8n bench (issue 36), served by the
 * bench upstream (real-n8n-upstream.mjs) on a server of its own: POST /v1/chat/completions.
 *
 * It limits as OpenAI's rate-limit guide describes (platform.openai.com/docs/guides/rate-limits):
 * requests per minute and tokens per minute, a request counted when it arrives, its tokens being
 * its prompt plus `max_tokens` (the guide: "your rate limit is calculated as the maximum of
 * max_tokens and the estimated number of tokens based on the character count of your request";
 * we count the sum, the stricter reading issue 36 names). The prompt's tokens are the characters
 * of the messages' content / 4, rounded up (the guide's "1 token ~= 4 chars in English"): a stand-in
 * for the limiter's own estimate, also given back as usage.prompt_tokens. The minute is a sliding
 * one (a count leaves it 60 s after it came): the strictest reading, which no fixed window beats.
 *
 * What it sends, and where each format comes from:
 * - every answer to an authorised chat request: x-ratelimit-{limit,remaining,reset}-{requests,tokens}
 *   (the guide's header table; resets as Go-style durations, the guide's samples "1s" and "6m0s",
 *   and as seen in answers, "17.28s" and "120ms"); "reset" is "the time until the rate limit
 *   resets to its initial state": here, until the newest count has left the minute.
 * - 429 over a limit: OpenAI's error body, `{"error":{"message":"Rate limit reached for <model> in
 *   organization <org> on tokens per min (TPM): Limit 60000, Used N, Requested M. Please try again
 *   in 18.642s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens",
 *   "param":null,"code":"rate_limit_exceeded"}}` (as quoted in user reports of the real API; "requests"
 *   and RPM for the request limit), with the same rate-limit headers and no Retry-After: the guide
 *   documents only the x-ratelimit headers. openai-node reads `retry-after-ms`, then `retry-after`,
 *   and backs off on its own without them (Azure OpenAI sends both; OpenAI's 429s are not
 *   documented to), so a client must learn the wait from the reset headers, the harder case.
 * - 429 for the quota model: OpenAI's `insufficient_quota` body, byte for byte as clients quote it
 *   ("You exceeded your current quota, please check your plan and billing details. ..."), without
 *   rate-limit headers: a spent account is no rate, and it is not counted in the minute.
 * - 401 `invalid_api_key` without an `Authorization: Bearer ...` header (the bench sends a fake key).
 *
 * A 200 comes after a latency drawn from [latencyMs[0], latencyMs[1]] (seeded), with a
 * chat.completion body and `usage`; completion_tokens is drawn from [max_tokens / 2, max_tokens]
 * (seeded). A 429 is answered at once, as a limiter in front of the model answers.
 */

const MINUTE_MS = 60_000;

/**
 * mulberry32: a small seeded generator, so that two runs draw the same latencies and lengths. The
 * tests' copy (test/unit/fake-runtime.ts) is TypeScript, which this plain-Node child process of the
 * bench cannot import.
 */
export function seededRandom(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** A wait as OpenAI writes it: "120ms", "17.28s", "6m0s". */
export function openAiDuration(ms) {
	const whole = Math.max(0, Math.ceil(ms));
	if (whole < 1000) return `${whole}ms`;
	const seconds = (value) => `${Number((value / 1000).toFixed(3))}s`;
	if (whole < MINUTE_MS) return seconds(whole);
	return `${Math.floor(whole / MINUTE_MS)}m${seconds(whole % MINUTE_MS)}`;
}

/**
 * The Responses API's input as chat messages (n8n's OpenAI node, Message a Model, v2.3): a string,
 * or messages whose content is a string or a list of parts ({ type: 'input_text', text }).
 */
function responsesMessages(input) {
	if (typeof input === 'string') return [{ content: input }];
	return (Array.isArray(input) ? input : []).map((m) => ({ content: Array.isArray(m?.content) ? m.content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('') : m?.content }));
}

/** The prompt's tokens as this server counts them: the messages' content characters / 4, rounded up. */
export function promptTokens(messages) {
	const chars = (Array.isArray(messages) ? messages : []).reduce((sum, m) => sum + (typeof m?.content === 'string' ? m.content.length : JSON.stringify(m?.content ?? '').length), 0);
	return Math.ceil(chars / 4);
}

/** A sliding minute of counts [at, n]: what is in it, and when room for `more` frees up. */
function slidingMinute() {
	const counts = [];
	const prune = (now) => {
		while (counts.length > 0 && counts[0][0] <= now - MINUTE_MS) counts.shift();
	};
	return {
		used(now) {
			prune(now);
			return counts.reduce((sum, [, n]) => sum + n, 0);
		},
		add(now, n) {
			counts.push([now, n]);
		},
		/** Until the newest count leaves the minute: the whole limit is free again then. */
		resetMs(now) {
			prune(now);
			return counts.length === 0 ? 0 : counts[counts.length - 1][0] + MINUTE_MS - now;
		},
		/** Until enough old counts have left for `more` to fit under `limit`. */
		fitsInMs(now, more, limit) {
			let over = this.used(now) + more - limit;
			for (const [at, n] of counts) {
				if (over <= 0) break;
				over -= n;
				if (over <= 0) return at + MINUTE_MS - now;
			}
			return 0;
		},
	};
}

const QUOTA_BODY = {
	error: {
		message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
		type: 'insufficient_quota',
		param: null,
		code: 'insufficient_quota',
	},
};

/**
 * The route handler for the flaky upstream's `v1` scenario. Options: tpm, rpm, seed, latencyMs
 * [lo, hi], quotaModel (a model whose every request gets insufficient_quota), headersWhen (a 200's
 * rate-limit headers as the request found the budget, 'admission', or as it stands when the answer
 * leaves, 'answer': OpenAI does not say which; its 429s state the budget at once). Each log entry gets
 * `key` = the body's `user` (the bench's item key), `tokens` (prompt + max_tokens) and `model`.
 */
export function openAiChatRoute({ tpm, rpm, seed, latencyMs = [200, 800], quotaModel = 'gpt-bench-no-quota', headersWhen = 'admission' }) {
	const tokens = slidingMinute();
	const requests = slidingMinute();
	const random = seededRandom(seed);
	let served = 0;
	const org = 'org-resilient-bench';
	const headersAt = (now) => ({
		'x-ratelimit-limit-requests': String(rpm),
		'x-ratelimit-limit-tokens': String(tpm),
		'x-ratelimit-remaining-requests': String(Math.max(0, rpm - requests.used(now))),
		'x-ratelimit-remaining-tokens': String(Math.max(0, tpm - tokens.used(now))),
		'x-ratelimit-reset-requests': openAiDuration(requests.resetMs(now)),
		'x-ratelimit-reset-tokens': openAiDuration(tokens.resetMs(now)),
	});
	return (req, res, { parts, body, entry, json }) => {
		const route = parts.join('/');
		if (req.method !== 'POST' || (route !== 'v1/chat/completions' && route !== 'v1/responses')) return json(res, (entry.status = 404), { error: { message: `Invalid URL (${req.method} ${entry.path})`, type: 'invalid_request_error', param: null, code: null } });
		if (!/^Bearer \S+$/.test(String(req.headers.authorization ?? ''))) {
			return json(res, (entry.status = 401), { error: { message: 'You didn\'t provide an API key.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
		}
		const request = typeof body === 'object' && body !== null ? body : {};
		const responses = route === 'v1/responses';
		const model = String(request.model ?? '');
		const max = responses ? request.max_output_tokens : request.max_tokens;
		const maxTokens = Number.isInteger(max) && max > 0 ? max : 0;
		const prompt = promptTokens(responses ? responsesMessages(request.input) : request.messages);
		const demand = prompt + maxTokens;
		// the item's key: chat's `user`, or the Responses API's `safety_identifier` (n8n's OpenAI node sends it)
		Object.assign(entry, { key: String((responses ? request.safety_identifier : request.user) ?? entry.key), tokens: demand, model });
		if (model === quotaModel) return json(res, (entry.status = 429), QUOTA_BODY, { 'x-request-id': `req_${entry.count}` });
		const now = entry.time;
		const overRequests = requests.used(now) + 1 > rpm;
		const overTokens = tokens.used(now) + demand > tpm;
		if (overRequests || overTokens) {
			const [kind, per, limit, used, asked, waitMs] = overTokens
				? ['tokens', 'tokens per min (TPM)', tpm, tokens.used(now), demand, tokens.fitsInMs(now, demand, tpm)]
				: ['requests', 'requests per min (RPM)', rpm, requests.used(now), 1, requests.fitsInMs(now, 1, rpm)];
			const message = `Rate limit reached for ${model} in organization ${org} on ${per}: Limit ${limit}, Used ${used}, Requested ${asked}. Please try again in ${openAiDuration(waitMs)}. Visit https://platform.openai.com/account/rate-limits to learn more.`;
			return json(res, (entry.status = 429), { error: { message, type: kind, param: null, code: 'rate_limit_exceeded' } }, headersAt(now));
		}
		tokens.add(now, demand);
		requests.add(now, 1);
		entry.status = 200;
		const headers = headersAt(now);
		const completion = Math.max(1, Math.ceil(maxTokens / 2) + Math.floor(random() * (Math.floor(maxTokens / 2) + 1)));
		const delay = latencyMs[0] + Math.floor(random() * (latencyMs[1] - latencyMs[0] + 1));
		const id = ++served;
		setTimeout(() => {
			// headersAt 'answer': the budget as it stands when the answer leaves (requests admitted
			// during this one's latency included), where 'admission' states it as this request found it
			const stated = headersWhen === 'answer' ? headersAt(Date.now()) : headers;
			const extra = { 'x-request-id': `req_${entry.count}_${id}`, 'openai-processing-ms': String(delay) };
			if (responses) {
				const output = [{ type: 'message', id: `msg_bench${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }];
				const usage = { input_tokens: prompt, output_tokens: completion, total_tokens: prompt + completion };
				json(res, 200, { id: `resp_bench${id}`, object: 'response', created_at: Math.floor(now / 1000), status: 'completed', model, output, usage }, { ...stated, ...extra });
				return;
			}
			json(
				res,
				200,
				{
					id: `chatcmpl-bench${id}`,
					object: 'chat.completion',
					created: Math.floor(now / 1000),
					model,
					choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, logprobs: null, finish_reason: completion >= maxTokens ? 'length' : 'stop' }],
					usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
					system_fingerprint: null,
				},
				{ ...stated, ...extra },
			);
		}, delay);
	};
}
