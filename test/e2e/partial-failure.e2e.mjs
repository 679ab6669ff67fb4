// A hold is for an API that is down, not for items that fail. Example 06 (webhook sender) under
// `n8n start`, real time, Deliver event at the node's default Max Attempts (5): a stream of 50
// events over a minute to a customer endpoint that fails a fifth of them (503) for that minute and
// accepts the rest at once. The healthy events are delivered by the sender itself, as they come
// (the failing ones' retries do not hold them back: the hold never opens); every event is delivered
// or kept in the dead-letter table; none is charged twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { callWebhook, loadExample, importWorkflow, listExecutions, ownerEnv, prepareUserFolder, publishOnServer, restClient, startFlakyServer, startN8n, stopN8n, waitFor } from './harness.mjs';

const SENDER = 'rhEx6WebhookSend';
const TABLE = 'Dead letters: webhook sender';
const EVENTS = 50;
const SPACING_MS = 1_200;
const FAIL_FOR_MS = 60_000;

let customer;
let n8n;
let client;
let failUntil = Infinity;
const charges = [];

before(async () => {
	customer = await startFlakyServer({
		events: (req, res, { parts, entry, json }) => {
			const id = parts[1];
			if (id.startsWith('fail') && Date.now() < failUntil) return json(res, (entry.status = 503), { error: 'unavailable' });
			const key = req.headers['idempotency-key'];
			if (!charges.some((c) => c.id === id && c.key === key)) charges.push({ id, key, time: Date.now() });
			json(res, (entry.status = 200), { received: id });
		},
	});
	const sender = loadExample('06-webhook-sender-dead-letter.json', customer.url);
	const deliver = sender.nodes.find((n) => n.name === 'Deliver event');
	// the node's default (5 attempts): a failing event's retries are most of the failures the API sees
	delete deliver.parameters.maxAttempts;
	const userFolder = await prepareUserFolder({ tarball: true });
	await importWorkflow(userFolder, sender);
	n8n = await startN8n(userFolder, { env: ownerEnv() });
	client = await restClient(n8n);
	await publishOnServer(client, [SENDER]); // as the editor's button does: no `publish:workflow` boot
});
after(async () => {
	await stopN8n();
	await customer?.close();
});

async function tableRows() {
	const tables = (await client.get('/rest/data-tables-global')).data.filter((t) => t.name === TABLE);
	if (tables.length === 0) return [];
	const [{ id, projectId }] = tables;
	return (await client.get(`/rest/projects/${projectId}/data-tables/${id}/rows?take=1000`)).data;
}

test('a fifth of the events fail for a minute, the rest succeed: the healthy ones are delivered by the sender as they come, nothing is lost or charged twice', async () => {
	// the first call waits for the webhook's registration; the stream starts after it
	const ids = Array.from({ length: EVENTS }, (_, k) => (k % 5 === 2 ? `fail-${k}` : `good-${k}`));
	const posted = new Map();
	const post = async (id) => {
		posted.set(id, Date.now());
		const res = await callWebhook(n8n, 'forward-events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, type: 'invoice.paid' }) });
		assert.equal(res.status, 200, await res.text());
	};
	await post('good-warmup');
	failUntil = Date.now() + FAIL_FOR_MS;
	const sends = [];
	for (const id of ids) {
		sends.push(post(id));
		await new Promise((r) => setTimeout(r, SPACING_MS));
	}
	await Promise.all(sends);
	// every execution ends within the events' Total Deadline (30 s)
	await waitFor(async () => {
		const executions = await listExecutions(client, SENDER, { limit: 100 });
		return executions.length >= EVENTS + 1 && executions.every((e) => e.stoppedAt);
	}, { timeoutMs: 120_000, what: 'every execution ended' });

	const good = ids.filter((id) => id.startsWith('good'));
	const delivered = (id) => customer.requests(`/events/${id}`).find((e) => e.status === 200);
	const goodDelivered = good.filter(delivered);
	const latencies = goodDelivered.map((id) => delivered(id).time - posted.get(id)).sort((a, b) => a - b);
	const rows = await tableRows();
	const kept = new Set(rows.map((r) => JSON.parse(r.item).body.id));
	const failing = ids.filter((id) => id.startsWith('fail'));
	console.log(
		`[partial-failure] healthy delivered by the sender: ${goodDelivered.length}/${good.length}; median ${latencies[Math.floor(latencies.length / 2)]} ms, max ${latencies.at(-1)} ms after the post; ` +
			`failing: ${failing.filter(delivered).length} delivered, ${failing.filter((id) => kept.has(id)).length} kept for replay; requests ${customer.log.length}`,
	);
	assert.ok(goodDelivered.length >= 0.9 * good.length, `healthy delivered by the sender: ${goodDelivered.length}/${good.length}`);
	// as they come: none waited for the failing ones (its own request, at once)
	for (const id of goodDelivered) assert.ok(delivered(id).time - posted.get(id) < 10_000, `${id} delivered ${delivered(id).time - posted.get(id)} ms after its post`);
	assert.doesNotMatch(n8n.logs(), /looks down/, 'the failing fifth never held the API');
	for (const id of [...ids, 'good-warmup']) {
		assert.ok(delivered(id) || kept.has(id), `${id}: delivered or kept for replay`);
		assert.ok(charges.filter((c) => c.id === id).length <= 1, `${id}: charged at most once`);
	}
});
