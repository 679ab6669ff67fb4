/** The local server helper itself: recording, injected clock, delays, drops and clean shutdown. */
import { request } from 'node:http';

import { startLocalServer } from './local-server';

interface ClientResult {
	status?: number;
	body?: string;
	error?: string;
}

/** A bare node:http client, so these tests do not depend on nock or n8n. */
async function send(url: string, method = 'GET', body?: string): Promise<ClientResult> {
	return await new Promise((resolve) => {
		const req = request(url, { method, headers: { 'x-test': 'yes' } }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
		});
		req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
		req.end(body);
	});
}

test('records method, url, headers, body and arrival time from the injected clock', async () => {
	let now = 1000;
	const server = await startLocalServer(
		(request, index) => ({ status: 201, headers: { 'retry-after': '3' }, body: { index, echo: request.body } }),
		{ clock: () => (now += 500) },
	);
	try {
		expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
		expect(await send(`${server.url}/a?x=1`, 'POST', 'hello')).toEqual({ status: 201, body: '{"index":0,"echo":"hello"}' });
		expect(await send(`${server.url}/b`)).toEqual({ status: 201, body: '{"index":1,"echo":""}' });

		expect(server.requests).toEqual([
			expect.objectContaining({ method: 'POST', url: '/a?x=1', body: 'hello', receivedAt: 1500 }),
			expect.objectContaining({ method: 'GET', url: '/b', body: '', receivedAt: 2000 }),
		]);
		expect(server.requests[0].headers['x-test']).toBe('yes');
	} finally {
		await server.close();
	}
});

test('drop destroys the socket after the request was read', async () => {
	const server = await startLocalServer(() => ({ drop: true }));
	try {
		expect(await send(`${server.url}/orders`, 'POST', '{"id":1}')).toEqual({ error: 'ECONNRESET' });
		expect(server.requests.map((r) => r.body)).toEqual(['{"id":1}']);
	} finally {
		await server.close();
	}
});

test('delayMs answers late, and close() ends hanging and delayed requests at once', async () => {
	const server = await startLocalServer((request) =>
		request.url === '/late' ? { body: 'late', delayMs: 100 } : request.url === '/hang' ? { hang: true } : request.url === '/now' ? { body: 'now' } : { delayMs: 60_000 },
	);
	// order, not the wall clock: the late answer comes after one sent after it
	const answered: string[] = [];
	const late = send(`${server.url}/late`).then((r) => (answered.push('late'), r));
	while (server.requests.length < 1) await new Promise((resolve) => setImmediate(resolve));
	const now = send(`${server.url}/now`).then((r) => (answered.push('now'), r));
	expect(await Promise.all([late, now])).toEqual([
		{ status: 200, body: 'late' },
		{ status: 200, body: 'now' },
	]);
	expect(answered).toEqual(['now', 'late']);

	// a request delayed by 60 s, past the test's timeout, ends only because close() ends it
	const hanging = send(`${server.url}/hang`);
	const delayed = send(`${server.url}/very-late`);
	while (server.requests.length < 4) await new Promise((resolve) => setTimeout(resolve, 5));
	await server.close();

	expect(await hanging).toEqual({ error: 'ECONNRESET' });
	expect(await delayed).toEqual({ error: 'ECONNRESET' });
});
