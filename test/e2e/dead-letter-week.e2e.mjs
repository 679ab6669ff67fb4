// Examples 06 and 07 over a simulated week in a real n8n 2.41.1 (`n8n start`, SQLite) whose Data
// Tables are capped small (N8N_DATA_TABLES_MAX_SIZE_BYTES): the dead-letter table stays under the
// cap, and every undelivered row is kept.
//   - The stream: each day 30 events the customer accepts on replay (ok-*), one it rejects (bad-*,
//     400: its row waits for a person, as the sender writes it) and one it never accepts (down-*,
//     503). Their rows are the sender's own: one real dead letter written by example 06 is the
//     template (its error and retry story), the event id changed per row.
//   - Time is injected through the rows: a day passes when every row's failedAt and retryAt move a
//     day back (the customer, n8n and the replay run on the real clock, minutes in all).
//   - Each day one replay (a copy of example 07 with keepDays 3): the ok-* rows are delivered and
//     deleted, the down-* rows rescheduled until, 3 days after their first failure, they are
//     expired (kept, reason "expired", an empty retryAt) and the replay's execution fails naming
//     them (Report expired rows).
//   - After each day: n8n's own measure of its Data Tables (GET /rest/data-tables-global/limits,
//     the bytes its size check compares with the cap) is under the cap, and the table holds
//     exactly the rows not delivered yet: every bad-* and down-* row, none delivered.
// Control: the same week's rows inserted without a replay pass the cap: n8n refuses an insert
// with "Data table size limit exceeded". At the cap the sender's execution fails at Keep for
// replay with that message, the event in its data, and the replay fails at its first update (n8n
// refuses inserts, updates and upserts at the cap); after rows are deleted (n8n allows a delete
// at the cap), n8n's Retry of the sender's execution writes the dead letter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { callWebhook, executeOnServer, getExecution, importWorkflow, listExecutions, loadExample, nodeResults, ownerEnv, prepareUserFolder, publishOnServer, restClient, startFlakyServer, startN8n, stopN8n, waitFor } from './harness.mjs';

const TABLE = 'Dead letters: webhook sender';
const SENDER = 'rhEx6WebhookSend';
const REPLAY = 'e2eReplayWeek';
const DAY_MS = 86_400_000;
/** All Data Tables together may hold this much (n8n's default is 200 MB in 2.41.1). */
const CAP_BYTES = 256 * 1024;
const DAYS = 7;
const DELIVERED_PER_DAY = 30;
const KEEP_DAYS = 3;

/** ok-* 200, bad-* 400, everything else 503; `charges` counts each event once per Idempotency-Key. */
async function startCustomer() {
	const charges = new Map();
	const server = await startFlakyServer({
		events: (req, res, { parts, entry, json }) => {
			const id = parts[1];
			if (id.startsWith('bad')) return json(res, (entry.status = 400), { error: 'rejected' });
			if (!id.startsWith('ok')) return json(res, (entry.status = 503), { error: 'unavailable' });
			const keys = charges.get(id) ?? new Set();
			charges.set(id, keys.add(req.headers['idempotency-key']));
			json(res, (entry.status = 200), { received: id });
		},
	});
	return { ...server, chargesOf: (id) => charges.get(id)?.size ?? 0 };
}

let customer;
let n8n;
let client;
let table;
let template;

before(async () => {
	customer = await startCustomer();
	const sender = loadExample('06-webhook-sender-dead-letter.json', customer.url);
	const replay = { ...loadExample('07-replay-dead-letters.json', customer.url), id: REPLAY, name: `E2E ${REPLAY}` };
	replay.nodes.find((n) => n.name === 'Config').parameters.assignments.assignments.find((a) => a.name === 'keepDays').value = KEEP_DAYS;
	const userFolder = await prepareUserFolder({ tarball: true });
	await importWorkflow(userFolder, [sender, replay]);
	// the size check reads n8n's measure afresh on every write (its cache is 5 s by default)
	n8n = await startN8n(userFolder, { env: { ...ownerEnv(), N8N_DATA_TABLES_MAX_SIZE_BYTES: String(CAP_BYTES), N8N_DATA_TABLES_SIZE_CHECK_CACHE_DURATION_MS: '0' } });
	client = await restClient(n8n);
	await publishOnServer(client, [SENDER]);

	// one real dead letter, written by the sender: the template of the stream's rows
	const [execution] = await postEvents(['down-template']);
	assert.equal(execution.status, 'success');
	table = (await client.get('/rest/data-tables-global')).data.find((t) => t.name === TABLE);
	assert.ok(table, 'the sender created its table');
	[template] = await rows();
	assert.equal(JSON.parse(template.item).body.id, 'down-template');
	await client.delete(`${rowsPath()}?filter=${encodeURIComponent(JSON.stringify(byId(template.id)))}`);
});
after(async () => {
	await stopN8n();
	await customer?.close();
});

const rowsPath = () => `/rest/projects/${table.projectId}/data-tables/${table.id}/rows`;
const byId = (id) => ({ type: 'and', filters: [{ columnName: 'id', condition: 'eq', value: id }] });
const rows = async () => (await client.get(`${rowsPath()}?take=1000`)).data;
const eventIdOf = (row) => JSON.parse(row.item).body.id;
/** n8n's measure of all its Data Tables: what its size check compares with the cap. */
const usedBytes = async () => (await client.get('/rest/data-tables-global/limits')).totalBytes;

/** Posts the events to the sender's webhook; resolves their finished executions. */
async function postEvents(ids) {
	const known = new Set((await listExecutions(client, SENDER, { limit: 100 })).map((e) => e.id));
	for (const id of ids) {
		const res = await callWebhook(n8n, 'forward-events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, type: 'invoice.paid' }) });
		assert.equal(res.status, 200, await res.text());
	}
	return await waitFor(
		async () => {
			const done = (await listExecutions(client, SENDER, { limit: 100 })).filter((e) => !known.has(e.id) && !['running', 'new'].includes(e.status));
			return done.length >= ids.length ? Promise.all(done.map((e) => getExecution(client, e.id))) : undefined;
		},
		{ timeoutMs: 90_000, what: `${ids.length} execution(s) of the sender` },
	);
}

/** A row as the sender writes it for this event (the template's error and story), failed now. */
function deadLetter(id) {
	const now = Date.now();
	const rejected = id.startsWith('bad');
	return {
		item: JSON.stringify({ body: { id, type: 'invoice.paid' } }),
		reason: rejected ? 'final-status' : template.reason,
		error: template.error,
		retryStory: template.retryStory,
		attempts: 1,
		idempotencyKey: `key-${id}`,
		claimedBy: '',
		failedAt: new Date(now).toISOString(),
		// due (the sender's replayAfterMinutes has passed); a rejected event waits for a person
		retryAt: rejected ? null : new Date(now - 1000).toISOString(),
	};
}
const insert = async (data) => await client.post(`/rest/projects/${table.projectId}/data-tables/${table.id}/insert`, { data, returnType: 'count' });

/** A day passes for the rows: their failedAt and retryAt move a day back. */
async function passDay() {
	for (const row of await rows()) {
		const back = (value) => (value === null ? null : new Date(new Date(value).getTime() - DAY_MS).toISOString());
		await client.patch(rowsPath(), { filter: byId(row.id), data: { failedAt: back(row.failedAt), retryAt: back(row.retryAt) } });
	}
}

const streamOf = (day) => [...Array.from({ length: DELIVERED_PER_DAY }, (_, i) => `ok-${day}-${i}`), `bad-${day}`, `down-${day}`];
const sent = new Set();
const week = [];

test(`a week of dead letters (${DELIVERED_PER_DAY + 2} a day) stays under a ${CAP_BYTES / 1024} KB cap, every undelivered row kept; a row undelivered ${KEEP_DAYS} days is expired and reported once`, async (t) => {
	for (let day = 0; day < DAYS; day++) {
		const ids = streamOf(day);
		ids.forEach((id) => sent.add(id));
		await insert(ids.map(deadLetter));
		const run = await executeOnServer(client, REPLAY, { trigger: 'Replay now', timeoutMs: 180_000 });
		const left = await rows();
		const bytes = await usedBytes();
		// what the customer accepted is delivered; the rest is undelivered and must be in the table
		const undelivered = [...sent].filter((id) => customer.chargesOf(id) === 0).sort();
		assert.deepEqual(left.map(eventIdOf).sort(), undelivered, `day ${day}: the table holds exactly the undelivered rows`);
		for (const id of sent) assert.ok(customer.chargesOf(id) <= 1, `${id} charged once at most`);
		const expired = left.filter((r) => r.reason === 'expired').map(eventIdOf).sort();
		const reported = run.status === 'error' ? run.data.resultData.error.message : '';
		week.push({ day, rows: left.length, bytes, expired: expired.length, status: run.status });
		t.diagnostic(`day ${day}: ${left.length} rows, ${bytes} bytes (${Math.round((100 * bytes) / CAP_BYTES)} % of the cap), expired ${expired.join(' ') || '-'}, replay ${run.status}`);
		assert.ok(bytes < CAP_BYTES, `day ${day}: ${bytes} bytes used, under the cap`);
		// down-(day - KEEP_DAYS) failed first KEEP_DAYS days ago: expired today, reported by this run only
		const expiring = day >= KEEP_DAYS ? `down-${day - KEEP_DAYS}` : undefined;
		assert.deepEqual(expired, Array.from({ length: Math.max(0, day - KEEP_DAYS + 1) }, (_, d) => `down-${d}`).sort());
		if (expiring) {
			assert.equal(run.status, 'error', `day ${day}: the replay reports ${expiring}`);
			assert.equal(nodeResults(run)['Report expired rows'].error.message, reported);
			assert.match(reported, new RegExp(`^1 dead letter\\(s\\) still undelivered after ${KEEP_DAYS} days \\(keepDays\\) are kept .*: \\d+: ${expiring}\\. To send one again`));
		} else assert.equal(run.status, 'success', `day ${day}: nothing to report (${reported})`);
		await passDay();
	}
	// every ok-* delivered exactly once over the week; every bad-* and down-* kept
	for (const id of sent) assert.equal(customer.chargesOf(id), id.startsWith('ok') ? 1 : 0, id);
	const kept = (await rows()).map(eventIdOf).sort();
	assert.deepEqual(kept, [...sent].filter((id) => !id.startsWith('ok')).sort());
	t.diagnostic(`week: ${JSON.stringify(week)}`);
});

test("control: the same week's rows without a replay pass the cap, and n8n refuses the insert; the sender's dead letter at the cap fails its execution, and n8n's Retry writes it once rows are deleted", async (t) => {
	const before = await rows();
	let inserted = 0;
	let refused;
	for (let day = 0; day < DAYS && !refused; day++) {
		for (const id of streamOf(day)) {
			try {
				await insert([deadLetter(`control-${id}`)]);
				inserted++;
			} catch (error) {
				refused = error;
				break;
			}
		}
	}
	const stream = DAYS * (DELIVERED_PER_DAY + 2);
	t.diagnostic(`without a replay: ${inserted} of the week's ${stream} rows fitted (${await usedBytes()} bytes) before n8n refused: ${refused?.message.slice(0, 200)}`);
	assert.ok(refused, "the week's rows without a replay pass the cap");
	assert.match(refused.message, /Data table size limit exceeded/);
	assert.ok(inserted < stream);

	// the sender at the cap: its execution fails at Keep for replay, with n8n's message and the event
	const [failed] = await postEvents(['down-at-cap']);
	assert.equal(failed.status, 'error');
	const keep = nodeResults(failed)['Keep for replay'];
	assert.match(keep.error.message, /Data table size limit exceeded/);
	assert.equal(JSON.parse(nodeResults(failed)['Dead-letter row'].items[0].item).body.id, 'down-at-cap', 'the event is in the failed execution');
	assert.equal((await rows()).filter((r) => eventIdOf(r) === 'down-at-cap').length, 0);
	// the replay at the cap: its first write (an update: the claim, or the expiry) is refused too,
	// and it fails; the rows are untouched
	const kept = await rows();
	const stuck = await executeOnServer(client, REPLAY, { trigger: 'Replay now', timeoutMs: 180_000 });
	assert.equal(stuck.status, 'error');
	assert.match(stuck.data.resultData.error.message, /Data table size limit exceeded/);
	t.diagnostic(`the replay at the cap failed at ${stuck.data.resultData.lastNodeExecuted}: ${stuck.data.resultData.error.message}`);
	assert.deepEqual(await rows(), kept);

	// room made (a delete is allowed at the cap), then n8n's Retry of the failed execution writes it
	await client.delete(`${rowsPath()}?filter=${encodeURIComponent(JSON.stringify({ type: 'and', filters: [{ columnName: 'item', condition: 'like', value: '%control-%' }] }))}`);
	assert.deepEqual((await rows()).map((r) => r.id).sort(), before.map((r) => r.id).sort());
	await client.post(`/rest/executions/${failed.id}/retry`, { loadWorkflow: false });
	const written = await waitFor(async () => (await rows()).find((r) => eventIdOf(r) === 'down-at-cap'), { timeoutMs: 60_000, what: 'the retried dead letter' });
	assert.equal(written.idempotencyKey, nodeResults(failed)['Dead-letter row'].items[0].idempotencyKey, 'the row the failed execution held');
});
