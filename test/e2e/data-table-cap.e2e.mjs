// Example 07's cap check (its third row, shipped disabled) in a real n8n 2.41.1 (`n8n start`,
// SQLite) whose Data Tables are capped at 256 KB (N8N_DATA_TABLES_MAX_SIZE_BYTES):
//   - 07 as shipped publishes without an n8n API key: the branch that needs one is disabled.
//   - Switched on as its sticky note says (an API key created by the owner, an n8nApi credential,
//     the nodes enabled, Cap config's dataTablesCapMB 0.25 for the test's cap), it reads every
//     table's sizeBytes from n8n's public API page by page (limit 1 here, so the cursor is followed
//     once per table), and its sums are n8n's own measure (GET /rest/data-tables-global/limits:
//     what n8n's size check compares with the cap, and each table's share).
//   - Under 80 % of the cap the execution succeeds; once rows push n8n's measure over it (n8n's own
//     quotaStatus turns to "warn" there too), it fails at Report near the cap naming the sizes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { executeOnServer, executionFailure, importWorkflow, loadExample, nodeResults, ownerEnv, prepareUserFolder, publishOnServer, restClient, startFlakyServer, startN8n, stopN8n } from './harness.mjs';

const SHIPPED = 'rhEx7ReplayDeadLet';
const TABLE = 'Dead letters: webhook sender';
const OTHER = 'E2E other table';
const CAP_BYTES = 256 * 1024;
const MB = 1048576;
const BRANCH = ['Check sizes every hour', 'Cap config', 'Data table sizes', 'Add up sizes', 'Near the cap?', 'Report near the cap'];

let customer;
let n8n;
let client;
let checkId;
let table;

before(async () => {
	// the receiver of 07's replays: no row is due in this test, so nothing is sent to it
	customer = await startFlakyServer();
	const userFolder = await prepareUserFolder({ tarball: true });
	await importWorkflow(userFolder, loadExample('07-replay-dead-letters.json', customer.url));
	// the public API's sizeBytes comes from n8n's size cache (5 s by default): read afresh here
	n8n = await startN8n(userFolder, { env: { ...ownerEnv(), N8N_DATA_TABLES_MAX_SIZE_BYTES: String(CAP_BYTES), N8N_DATA_TABLES_SIZE_CHECK_CACHE_DURATION_MS: '0' } });
	client = await restClient(n8n);
});
after(async () => {
	await stopN8n();
	await customer?.close();
});

/** n8n's measure of its Data Tables: the total its size check compares with the cap, and each table's. */
const limits = async () => await client.get('/rest/data-tables-global/limits');
const rowsPath = (t) => `/rest/projects/${t.projectId}/data-tables/${t.id}`;
/** A row of about the size of one of 06's dead letters (one 4 KB SQLite page). */
const filler = (n) => ({ item: JSON.stringify({ body: { id: `filler-${n}` } }), reason: 'attempts-exhausted', attempts: 1, error: 'x'.repeat(3000), failedAt: new Date().toISOString(), retryAt: null, claimedBy: '', idempotencyKey: `key-filler-${n}` });

test('07 as shipped publishes without an n8n API key: the cap check is disabled', async () => {
	const stored = await client.get(`/rest/workflows/${SHIPPED}`);
	for (const name of BRANCH) assert.equal(stored.nodes.find((n) => n.name === name)?.disabled, true, `${name} ships disabled`);
	await publishOnServer(client, [SHIPPED]);
	assert.equal((await client.get(`/rest/workflows/${SHIPPED}`)).active, true);
	// its replays every minute would write while the sizes are compared below
	await client.post(`/rest/workflows/${SHIPPED}/deactivate`, {});
});

test("switched on, the check reads n8n's own measure of all tables: success under 80 % of the cap, a failure naming the sizes over it", async (t) => {
	// as a user switches it on: an API key (Settings > n8n API), an n8nApi credential, the nodes enabled
	const key = await client.post('/rest/api-keys', { label: 'E2E cap check', scopes: ['dataTable:list'], expiresAt: null });
	assert.ok(key.rawApiKey);
	const credential = await client.post('/rest/credentials', { name: 'E2E n8n API', type: 'n8nApi', data: { apiKey: key.rawApiKey, baseUrl: `${n8n.url}/api/v1` } });
	const workflow = loadExample('07-replay-dead-letters.json', customer.url);
	for (const node of workflow.nodes.filter((n) => BRANCH.includes(n.name))) delete node.disabled;
	const sizes = workflow.nodes.find((n) => n.name === 'Data table sizes');
	sizes.credentials = { n8nApi: { id: credential.id, name: credential.name } };
	// one table a page: the cursor is followed from page to page
	sizes.parameters.queryParameters.parameters.find((p) => p.name === 'limit').value = '1';
	const config = workflow.nodes.find((n) => n.name === 'Cap config').parameters.assignments.assignments;
	config.find((a) => a.name === 'n8nApiUrl').value = `${n8n.url}/api/v1`;
	config.find((a) => a.name === 'dataTablesCapMB').value = CAP_BYTES / MB;
	checkId = (await client.post('/rest/workflows', { name: 'E2E cap check', nodes: workflow.nodes, connections: workflow.connections, settings: workflow.settings })).id;

	// the replay creates the dead-letter table; another table counts towards the cap too
	const replay = await executeOnServer(client, checkId, { trigger: 'Replay now', timeoutMs: 120_000 });
	assert.equal(replay.status, 'success', executionFailure(replay));
	table = (await client.get('/rest/data-tables-global')).data.find((d) => d.name === TABLE);
	assert.ok(table, 'the replay created its table');
	const other = await client.post(`/rest/projects/${table.projectId}/data-tables`, { name: OTHER, columns: [{ name: 'note', type: 'string' }] });
	await client.post(`${rowsPath(other)}/insert`, { data: Array.from({ length: 5 }, (_, n) => ({ note: `${n} ${'y'.repeat(3000)}` })), returnType: 'count' });
	const check = async () => await executeOnServer(client, checkId, { trigger: 'Check sizes every hour', timeoutMs: 120_000 });
	/** What the check added up, against n8n's measure read right after it (nothing writes meanwhile). */
	const compare = async (run) => {
		const [sum] = nodeResults(run)['Add up sizes'].items;
		const measure = await limits();
		const share = Object.values(measure.dataTables).find((d) => d.name === TABLE).sizeBytes;
		assert.equal(sum.totalBytes, measure.totalBytes, "the total is n8n's measure");
		assert.equal(sum.deadLetterBytes, share, "the dead-letter table's share is n8n's measure of it");
		assert.equal(sum.tables, Object.keys(measure.dataTables).length);
		assert.equal(sum.capBytes, CAP_BYTES);
		assert.equal(nodeResults(run)['Data table sizes'].items.length, sum.tables, 'one page a table');
		return { sum, measure };
	};

	const under = await check();
	assert.equal(under.status, 'success', executionFailure(under));
	const calm = await compare(under);
	assert.equal(calm.measure.quotaStatus, 'ok');
	assert.ok(calm.sum.totalBytes < calm.sum.warnAtBytes);
	t.diagnostic(`under: ${calm.sum.totalBytes} of ${CAP_BYTES} bytes in ${calm.sum.tables} tables, the dead letters ${calm.sum.deadLetterBytes}: success`);

	// dead letters pile up until n8n's measure passes 80 % of the cap (still under the cap)
	let n = 0;
	while ((await limits()).totalBytes < Math.floor(0.8 * CAP_BYTES)) await client.post(`${rowsPath(table)}/insert`, { data: [filler(n++)], returnType: 'count' });
	const over = await check();
	assert.equal(over.status, 'error', 'the check fails over the threshold');
	assert.equal(over.data.resultData.lastNodeExecuted, 'Report near the cap');
	const near = await compare(over);
	assert.equal(near.measure.quotaStatus, 'warn', "n8n's own threshold agrees");
	const { totalBytes, deadLetterBytes, tables } = near.sum;
	const mb = (bytes) => Number((bytes / MB).toFixed(2));
	const percent = Math.floor((100 * totalBytes) / CAP_BYTES);
	assert.ok(percent >= 80 && percent < 100, `${percent} %`);
	assert.equal(
		over.data.resultData.error.message,
		`Data tables hold ${mb(totalBytes)} MB of n8n's 0.25 MB cap (${percent} %: ${totalBytes} of ${CAP_BYTES} bytes, in ${tables} table(s)); "${TABLE}" holds ${mb(deadLetterBytes)} MB (${deadLetterBytes} bytes). At the cap n8n refuses every insert and update: new dead letters cannot be written and the replay stops. Fix the receiver and let the replay deliver the rows, delete rows you no longer need, or raise N8N_DATA_TABLES_MAX_SIZE_BYTES (and dataTablesCapMB in Cap config with it).`,
	);
	t.diagnostic(`over, after ${n} rows: ${over.data.resultData.error.message.split(').')[0]})`);
	// the key never shows in what the execution keeps
	assert.ok(!JSON.stringify(over.data).includes(key.rawApiKey), 'no API key in the run data');
});
