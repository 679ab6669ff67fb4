// A local OpenAI-compatible chat completions server for AI Agent tests (no internet): the first
// completion of a conversation calls the first tool offered with the arguments the test chose; once
// the conversation holds that tool's result, it answers with a final message quoting the result.
// Every request is recorded, so a test can read what the model was told (the tools offered, their
// descriptions and schemas, the tool results).
import http from 'node:http';

/**
 * `startFakeOpenAi({ toolArguments })` -> `{ url, requests, toolResults(), close() }`.
 * `toolArguments` is the call's arguments, or a function of the offered tool (`{ name,
 * description, parameters }`) that returns them: for a tool whose parameter names the editor chose.
 * `url` is the credential's Base URL (`.../v1`); `requests` the parsed bodies of
 * `POST /v1/chat/completions`; `toolResults()` the content of every `tool` message received.
 */
export async function startFakeOpenAi({ toolArguments = {} } = {}) {
	const requests = [];
	let callCounter = 0;

	function completion(body) {
		const messages = body.messages ?? [];
		const toolMessage = [...messages].reverse().find((m) => m.role === 'tool');
		const model = body.model ?? 'fake-model';
		if (toolMessage) {
			const content = typeof toolMessage.content === 'string' ? toolMessage.content : JSON.stringify(toolMessage.content);
			return { message: { role: 'assistant', content: `The tool answered: ${content}` }, finish: 'stop', model };
		}
		const tool = body.tools?.[0]?.function;
		if (!tool) return { message: { role: 'assistant', content: 'No tool was offered.' }, finish: 'stop', model };
		const args = typeof toolArguments === 'function' ? toolArguments(tool) : toolArguments;
		const call = { id: `call_${++callCounter}`, type: 'function', function: { name: tool.name, arguments: JSON.stringify(args) } };
		return { message: { role: 'assistant', content: null, tool_calls: [call] }, finish: 'tool_calls', model };
	}

	function send(res, body, answer) {
		const id = `chatcmpl-${requests.length}`;
		const created = Math.floor(Date.now() / 1000);
		const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
		if (body.stream) {
			res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
			const delta = { role: 'assistant', content: answer.message.content ?? null };
			if (answer.message.tool_calls) delta.tool_calls = answer.message.tool_calls.map((call, index) => ({ index, ...call }));
			const chunk = (choice, extra = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: answer.model, choices: [choice], ...extra })}\n\n`;
			res.write(chunk({ index: 0, delta, finish_reason: null }));
			res.write(chunk({ index: 0, delta: {}, finish_reason: answer.finish }, { usage }));
			res.end('data: [DONE]\n\n');
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ id, object: 'chat.completion', created, model: answer.model, choices: [{ index: 0, message: answer.message, finish_reason: answer.finish }], usage }));
	}

	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const path = new URL(req.url, 'http://127.0.0.1').pathname;
			if (req.method === 'GET' && path.endsWith('/models')) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'e2e' }] }));
				return;
			}
			if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
				return;
			}
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				res.writeHead(400, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: 'invalid JSON' } }));
				return;
			}
			requests.push({ body, headers: req.headers, time: Date.now() });
			send(res, body, completion(body));
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		toolResults: () => requests.flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))),
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}
