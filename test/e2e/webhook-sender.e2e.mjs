// Example 06 under `n8n start`, called with real HTTP requests: events are forwarded with the
// idempotency key derived from their id, failures land in the dead-letter branch (its table and
// the replay: dead-letter-replay.e2e.mjs), and a customer endpoint that is down is held: one probe
// at a time reaches it, the other events wait, and they go through once it answers again (events
// that fail while others succeed are partial-failure.e2e.mjs's).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createRequire } from 'node:module';
import { REPO, callWebhook, importWorkflow, ownerEnv, prepareUserFolder, publishOnServer, restClient, startFlakyServer, startN8n, stopN8n } from './harness.mjs';

const { derivedIdempotencyKey } = createRequire(import.meta.url)(path.join(REPO, 'dist/nodes/shared/core/idempotency.js'));

const FILE = path.join(REPO, 'workflows/06-webhook-sender-dead-letter.json');
let customer;
/** While set, the customer is down: every event but a rejected one gets 503. */
const outage = { on: false };
let n8n;
/** The key Deliver event derives from the event id (Key Based On: Selected Fields, body.id). */
let keyOf;

before(async () => {
	// the built-in events scenario (ok-* fail once then accept, bad-* are rejected (400), down-* always
	// 503), and a customer that is down for every event while `outage.on`
	customer = await startFlakyServer({
		events: (_req, res, { parts, count, entry, json }) => {
			const id = parts[1] ?? '';
			const status = id.startsWith('bad') ? 400 : outage.on || id.startsWith('down') || count <= 1 ? 503 : 200;
			json(res, (entry.status = status), status === 200 ? { received: id } : { error: status });
		},
	});
	const workflow = JSON.parse(fs.readFileSync(FILE, 'utf8'));
	const config = workflow.nodes.find((n) => n.name === 'Config');
	config.parameters.assignments.assignments.find((a) => a.name === 'baseUrl').value = customer.url;
	const deliver = workflow.nodes.find((n) => n.name === 'Deliver event');
	// The hold's break doubles with every failed probe: while the customer is down, the new events
	// probe first (their first request), then the retries of the down events (up to 10) and of the
	// new ones. With the example's 30 s Hold: Max Time Between Test Requests the first probe after the customer is back
	// could come 30 s later, and a worst case past the example's 30 s Total Deadline would rightly
	// send the held events to the dead letters. The test caps the break at 4 s and gives the events
	// 60 s; the dead-letter path of an event that runs out of time is dead-letter-replay.e2e.mjs's.
	deliver.parameters.sharedLimits = { ...deliver.parameters.sharedLimits, breakerMaxBreak: 4000 };
	deliver.parameters.retryOptions = { ...deliver.parameters.retryOptions, totalDeadline: 60_000 };
	keyOf = (id) => derivedIdempotencyKey({ workflowId: workflow.id, nodeId: deliver.id }, 'fields', { 'body.id': id });
	const userFolder = await prepareUserFolder({ tarball: true });
	await importWorkflow(userFolder, workflow);
	n8n = await startN8n(userFolder, { env: ownerEnv() });
	// published as the editor's button does: a `publish:workflow` would boot n8n once more
	await publishOnServer(await restClient(n8n), [workflow.id]);
});
after(async () => {
	await stopN8n();
	await customer?.close();
});

async function post(id) {
	// n8n may still be registering the published webhook just after start: callWebhook waits for it
	const res = await callWebhook(n8n, 'forward-events', {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ id, type: 'invoice.paid' }),
	});
	assert.equal(res.status, 200, await res.text());
}

async function waitFor(predicate, what, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	while (!predicate()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; customer log: ${JSON.stringify(customer.log.map((e) => [e.path, e.status]))}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

test('events are delivered once each, with their idempotency key, retried on a 503', async () => {
	await Promise.all(['ok-1', 'ok-2', 'ok-3'].map(post));
	await waitFor(() => ['ok-1', 'ok-2', 'ok-3'].every((id) => customer.requests(`/events/${id}`).some((e) => e.status === 200)), 'three deliveries');
	for (const id of ['ok-1', 'ok-2', 'ok-3']) {
		const requests = customer.requests(`/events/${id}`);
		assert.deepEqual(requests.map((e) => e.status), [503, 200], id);
		assert.deepEqual(requests.map((e) => e.headers['idempotency-key']), [keyOf(id), keyOf(id)]);
		assert.deepEqual(requests[1].body, { id, type: 'invoice.paid' });
		// backoff: base 500 ms, full jitter: the retry comes after the first answer, within the cap
		assert.ok(requests[1].time >= requests[0].time, 'retry after the failure');
	}
});

test('a rejected event is not retried; a customer that is down is held: one probe at a time, and the waiting events go through when it answers', async () => {
	await post('bad-1');
	await waitFor(() => customer.requests('/events/bad-1').length === 1, 'bad-1');
	// the customer goes down: five events in a row fail their first request (one event failing again
	// and again would not hold it: items that fail are not an API that is down)
	outage.on = true;
	const down = ['down-1', 'down-2', 'down-3', 'down-4', 'down-5'];
	for (const id of down) await post(id);
	await waitFor(() => /the API 127\.0\.0\.1:\d+ looks down/.test(n8n.logs()), 'the hold', 30_000);
	const heldFrom = Date.now();
	// three events while it is held: they wait (one probe at a time), and go through once it is back
	const ids = ['ok-4', 'ok-5', 'ok-6'];
	await Promise.all(ids.map(post));
	await new Promise((r) => setTimeout(r, 5_000));
	// and until the customer has seen two probes since the test saw the hold (1 s, then 2 s after its
	// start): on a busy machine the log line that tells the hold comes late, and 5 s from it could
	// hold a single probe
	await waitFor(() => customer.log.filter((e) => e.time > heldFrom).length >= 2, 'two probes during the hold', 30_000);
	outage.on = false;
	const backAt = Date.now();
	await waitFor(() => ids.every((id) => customer.requests(`/events/${id}`).some((e) => e.status === 200)), 'the held events delivered', 90_000);
	assert.match(n8n.logs(), /the API 127\.0\.0\.1:\d+ answers again/);

	for (const id of ids) {
		const statuses = customer.requests(`/events/${id}`).map((e) => e.status);
		assert.deepEqual(statuses.filter((s) => s === 200), [200], `${id}: delivered once`);
		assert.equal(statuses.at(-1), 200, `${id}: held, not refused: delivered once the customer was back (${statuses})`);
	}
	// while held, the customer saw probes, one at a time with growing intervals (1 s, 2 s, ...), not a
	// request per waiting event: every request from the hold until it was back came alone
	const probes = customer.log.filter((e) => e.time > heldFrom && e.time <= backAt).map((e) => e.time);
	assert.ok(probes.length >= 2, `probes: ${probes.length}`);
	for (let k = 1; k < probes.length; k++) assert.ok(probes[k] - probes[k - 1] >= 700, `probes ${probes[k] - probes[k - 1]} ms apart`);
	assert.equal(customer.requests('/events/bad-1').length, 1, 'a 400 is final');
	for (const id of down) assert.ok(customer.requests(`/events/${id}`).length <= 3, `${id}: at most its 3 attempts`);
});
