// The differential suite's sample in a real n8n 2.41.1: a fixed sample of test/engine/differential's
// cases (every group, every typeVersion), each run with n8n's HTTP Request and with Resilient HTTP
// Request (type changed, nothing else) in ONE `n8n start` (SQLite, the packed tarball installed),
// against the same local servers. Each side is a stored workflow run as *Execute workflow* runs it
// (POST /rest/workflows/:id/run from its Manual Trigger, mode 'manual' as in the engine suite); its
// run data is read back from the REST API, observed, normalised, compared and judged by the engine
// suite's own code (harness.ts, deviations.ts, compiled here by the repository's TypeScript). The
// verdict of every sampled case must equal its verdict in results.json, read at run time: the
// engine suite is the reference, and a case that judges otherwise in real n8n is a finding.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
	REPO,
	TMP_BASE,
	executeOnServer,
	ownerEnv,
	prepareUserFolder,
	restClient,
	startN8n,
	stopN8n,
} from './harness.mjs';

const DIFFERENTIAL = path.join(REPO, 'test/engine/differential');
const RESULTS_FILE = path.join(DIFFERENTIAL, 'results.json');

/** The sample: every `STRIDE`th case of each group (at least MIN_PER_GROUP), then cases added until each typeVersion has MIN_PER_VERSION. */
const STRIDE = 15;
const MIN_PER_GROUP = 3;
const MIN_PER_VERSION = 3;
/** Cases run at once (each one's two sides in turn): n8n and the test share 2 cores. */
const CONCURRENCY = 4;

/**
 * harness.ts (workflows, observation, normalisation, comparison), deviations.ts (judgement),
 * cases.ts and server.ts, compiled with the repository's TypeScript (CommonJS) into the e2e temp
 * folder: the same code the engine suite runs, not a copy. They import nothing but types and Node's
 * own modules, so the compiled files load from anywhere.
 */
async function compileDifferential() {
	const out = fs.mkdtempSync(path.join(TMP_BASE, 'differential-js-'));
	const files = ['harness.ts', 'deviations.ts', 'cases.ts', 'server.ts'].map((f) => path.join(DIFFERENTIAL, f));
	const tsconfig = path.join(out, 'tsconfig.json');
	fs.writeFileSync(
		tsconfig,
		JSON.stringify({
			extends: path.join(REPO, 'tsconfig.json'),
			compilerOptions: { outDir: path.join(out, 'js'), rootDir: DIFFERENTIAL, module: 'commonjs', sourceMap: false, noEmitOnError: true, typeRoots: [path.join(REPO, 'node_modules/@types')], types: ['node'] },
			files,
			include: [],
		}),
	);
	// `npx tsc -p`, without npx's own start-up
	const tsc = spawn(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	tsc.stdout.on('data', (c) => (output += c));
	tsc.stderr.on('data', (c) => (output += c));
	const exitCode = await new Promise((resolve) => tsc.once('close', resolve));
	if (exitCode !== 0) throw new Error(`tsc -p ${tsconfig} failed (${exitCode}):\n${output}`);
	const load = createRequire(path.join(out, 'js', 'index.js'));
	return { harness: load('./harness.js'), deviations: load('./deviations.js'), cases: load('./cases.js'), server: load('./server.js') };
}

/** Deterministic: the same cases.ts gives the same sample. Returns the cases in cases.ts's order. */
function sampleOf(cases, typeVersions) {
	const chosen = new Set();
	const groups = [...new Set(cases.map((c) => c.group))];
	for (const group of groups) {
		const list = cases.filter((c) => c.group === group);
		const k = Math.min(list.length, Math.max(MIN_PER_GROUP, Math.ceil(list.length / STRIDE)));
		for (let n = 0; n < k; n++) chosen.add(list[Math.floor((n * list.length) / k)]);
	}
	for (const tv of typeVersions) {
		const list = cases.filter((c) => c.typeVersion === tv && !chosen.has(c));
		const missing = MIN_PER_VERSION - [...chosen].filter((c) => c.typeVersion === tv).length;
		for (let n = 0; n < missing && n < list.length; n++) chosen.add(list[Math.floor((n * list.length) / missing)]);
	}
	return cases.filter((c) => chosen.has(c));
}

const SIDES = ['reference', 'resilient'];

/**
 * Stores the two workflows of a case through the REST API, as the editor saves them: harness.ts's
 * workflow around each side's node, the items pinned on the Items node (the engine suite's Items
 * node is a test-only node type; a real n8n feeds fixed items to a manual run through pin data),
 * and credentials of their own per side (n8n stores the OAuth2 token it fetches in the
 * credential: the engine gives each run a copy). Resolves the workflow ids, reference first.
 */
async function storeCase(client, harness, { c, index, base, otherBase }) {
	const nodes = harness.nodesOf(c, base, otherBase);
	const ids = [];
	for (const side of SIDES) {
		const node = nodes[side];
		if (c.credentials) {
			node.credentials = {};
			for (const [type, data] of Object.entries(c.credentials)) {
				const stored = await client.post('/rest/credentials', { name: `${type} ${index} ${side}`, type, data: harness.substitute(data, base, otherBase) });
				node.credentials[type] = { id: stored.id, name: stored.name };
			}
		}
		const workflow = harness.caseWorkflow(node, { type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} });
		const stored = await client.post('/rest/workflows', {
			name: `${side}: ${harness.caseId(c)}`.slice(0, 128),
			...workflow,
			pinData: { Items: harness.itemsOf(c, base, otherBase) },
			settings: { executionOrder: 'v1' },
			active: false,
		});
		ids.push(stored.id);
	}
	return ids;
}

/**
 * What a real n8n gives other than n8n's engine in process, made the same here and nowhere else,
 * before harness.ts observes the run (observe() reads { status, error, runData }):
 *   - binary data: n8n stores it in its default mode, 'filesystem' (an item holds
 *     { id: 'filesystem-v2:<path>', data: 'filesystem-v2', bytes, fileSize }); the engine keeps it
 *     in the item (base64 `data`). Each stored binary's bytes are read back through the REST API
 *     (/rest/binary-data) and put in `data`; the `id` (a per-run path) is dropped. What the storage
 *     adds besides (`bytes`, `fileSize`) stays: both sides store through the same service.
 *   - errors: the REST API serves the run data as n8n stored it, JSON (`flatted`), so an error (the
 *     node's, the execution's, or one an error item holds under `json.error`) is its toJSON()
 *     (message, name, description, context, timestamp, the cause's name and message, ...) or its
 *     enumerable fields, not the live object with its class (`__class`) and every own property
 *     (an axios error's `isAxiosError`, `options`) that the engine sees. Nothing is restored: the
 *     comparison sees what n8n keeps and shows, so a difference only in those can judge otherwise
 *     here (the test then fails and says which case).
 *   - a workflow n8n refuses to start (a node has issues, WorkflowHasIssuesError): the engine
 *     throws it; n8n stores a failed execution with that error and no run data. Both become
 *     harness.refused().
 */
/**
 * A real-n8n verdict agrees with the engine's when it is the same, or when the stored view needs
 * fewer of the engine's deviations: a deviation about a field n8n does not store (a credential in
 * the error's `options`, say) has nothing to explain there. A difference nothing explains must be
 * found in both.
 */
function agrees(real, engine) {
	if (real === engine) return true;
	const names = (verdict) => (verdict.startsWith('deliberate:') ? verdict.slice('deliberate:'.length).split('+') : []);
	if (!engine?.startsWith('deliberate:')) return false;
	if (real === 'identical') return true;
	return real.startsWith('deliberate:') && names(real).every((name) => names(engine).includes(name));
}

/** The fields of an AxiosError that axios' toJSON leaves out of a stored execution. */
const AXIOS_FIELDS_NOT_STORED = ['error', 'isAxiosError', 'options', 'response', 'statusCode'];

async function realRunView(client, execution) {
	const resultData = execution.data?.resultData ?? {};
	const runData = resultData.runData ?? {};
	for (const runs of Object.values(runData)) {
		for (const task of runs ?? []) {
			for (const items of task?.data?.main ?? []) {
				for (const item of items ?? []) {
					// n8n stores an execution's items as JSON: HTTP Request's error item holds axios' own
					// AxiosError, whose toJSON keeps message, name, code and status but drops the rest; the
					// node's error object keeps every field in the stored execution too. What the next node
					// of the same execution sees (every field, from both) is compared by the engine suite;
					// here the stored view of both is compared without the fields axios does not store.
					if (item?.json?.error !== null && typeof item?.json?.error === 'object') {
						for (const field of AXIOS_FIELDS_NOT_STORED) delete item.json.error[field];
					}
					for (const binary of Object.values(item?.binary ?? {})) {
						if (!binary?.id) continue;
						const bytes = await client.bytes(`/rest/binary-data?id=${encodeURIComponent(binary.id)}&action=download`);
						delete binary.id;
						binary.data = bytes.toString('base64');
					}
				}
			}
		}
	}
	return { status: execution.status, error: resultData.error, runData };
}


let code;
let sample;
let fixtures;
let n8n;
let client;
const timings = {};

before(async () => {
	const t0 = Date.now();
	// compiling and n8n's start take a core each: side by side
	const compiling = compileDifferential().then((compiled) => ((timings.compile = Date.now() - t0), compiled));
	const userFolder = await prepareUserFolder({ tarball: true });
	const starting = startN8n(userFolder, { env: ownerEnv() }).then((server) => ((timings.start = Date.now() - t0), server));
	code = await compiling;
	sample = sampleOf(code.cases.CASES, code.harness.TYPE_VERSIONS);
	// a server per case: the Resilient node keeps its traffic state (outage hold, retry budget) per
	// origin for the life of the n8n process, where the engine suite gives each run a fresh store;
	// an origin per case keeps one case's failures from holding another's requests
	fixtures = await Promise.all(
		sample.map(async (c, index) => {
			const server = await code.server.startDiffServer();
			const { base, otherBase } = server.register('0', c.handler);
			return { c, index, server, base, otherBase };
		}),
	);
	n8n = await starting;
	client = await restClient(n8n);
	const t1 = Date.now();
	await code.harness.pool(fixtures, 4, async (f) => void (f.workflowIds = await storeCase(client, code.harness, f)));
	timings.store = Date.now() - t1;
});

after(async () => {
	await stopN8n();
	await Promise.all((fixtures ?? []).map((f) => f.server.close()));
});

test('the sample covers every group and every typeVersion', () => {
	const groups = new Set(code.cases.CASES.map((c) => c.group));
	assert.deepEqual(new Set(sample.map((c) => c.group)), groups);
	for (const tv of code.harness.TYPE_VERSIONS) assert.ok(sample.filter((c) => c.typeVersion === tv).length >= MIN_PER_VERSION, `typeVersion ${tv}`);
	assert.ok(sample.length >= 36, `${sample.length} cases`);
});

test("every sampled case judges the same in a real n8n as in the engine suite's results.json", async () => {
	const { harness, deviations } = code;
	const committedCases = JSON.parse(fs.readFileSync(RESULTS_FILE, 'utf8')).cases;
	const committed = new Map(committedCases.map((r) => [`${r.group}/${r.name}`, r.verdict]));
	const committedPaths = new Map(committedCases.map((r) => [`${r.group}/${r.name}`, r.paths]));
	const started = Date.now();
	const outcomes = await code.harness.pool(fixtures, CONCURRENCY, async ({ c, server, base, otherBase, workflowIds }) => {
		const observations = [];
		const notRun = [];
		for (const [n, workflowId] of workflowIds.entries()) {
			server.reset('0');
			const execution = await executeOnServer(client, workflowId, { timeoutMs: 60_000 });
			const run = await realRunView(client, execution);
			const requests = server.requestsOf('0');
			const refusal = harness.isRefusal(run.error) && !run.runData.HTTP;
			// a side whose HTTP node never ran, unrefused, would compare nothing (n8n could not load the node, say)
			if (!refusal && !run.runData.HTTP) notRun.push(`${SIDES[n]}: ${execution.status} ${JSON.stringify(run.error?.message ?? null)}`);
			observations.push(refusal ? harness.refused(run.error, requests) : harness.observe(run, requests));
		}
		const pair = harness.compare(observations[0], observations[1], base, otherBase);
		const judgement = deviations.judge(pair.differences, c);
		return { id: harness.caseId(c), c, engine: committed.get(harness.caseId(c)), real: judgement.verdict, unexplained: judgement.unexplained, notRun };
	});
	timings.cases = Date.now() - started;

	const byGroup = {};
	for (const o of outcomes) {
		const g = (byGroup[o.c.group] ??= { cases: 0, agree: 0, identical: 0, deliberate: 0, different: 0 });
		g.cases++;
		if (agrees(o.real, o.engine)) g.agree++;
		g[o.real.startsWith('deliberate') ? 'deliberate' : o.real]++;
	}
	const versions = {};
	for (const o of outcomes) versions[o.c.typeVersion] = (versions[o.c.typeVersion] ?? 0) + 1;
	process.stdout.write(
		`\nDifferential sample in real n8n: ${outcomes.length} cases, ${outcomes.length * 2} executions` +
			` (compile ${timings.compile} ms and n8n start ${timings.start} ms side by side, workflows stored ${timings.store} ms, cases run ${timings.cases} ms)\n` +
			`${Object.entries(byGroup)
				.map(([group, s]) => `  ${group.padEnd(18)} ${String(s.cases).padStart(3)} cases (${s.identical} identical, ${s.deliberate} deliberate, ${s.different} different), ${s.agree} with the engine's verdict`)
				.join('\n')}\n  typeVersions: ${JSON.stringify(versions)}\n`,
	);

	assert.deepEqual(outcomes.filter((o) => o.notRun.length > 0).map((o) => `${o.id}: ${o.notRun.join('; ')}`), [], 'each side ran its HTTP node, or n8n refused to start it');
	// told, not asserted: where the verdicts agree but the first differing paths do not (results.json
	// keeps 8 a case; an error item's `json.error` is stored as its JSON: no class, no axios fields)
	const pathNotes = outcomes
		.filter((o) => agrees(o.real, o.engine))
		.map((o) => {
			const real = [...new Set(o.unexplained.map((d) => d.path))].slice(0, 8);
			const engine = committedPaths.get(o.id) ?? [];
			return { id: o.id, engineOnly: engine.filter((p) => !real.includes(p)), realOnly: real.filter((p) => !engine.includes(p)) };
		})
		.filter((n) => n.engineOnly.length + n.realOnly.length > 0)
		.map((n) => `  ${n.id}: engine only ${JSON.stringify(n.engineOnly)}, real n8n only ${JSON.stringify(n.realOnly)}`);
	if (pathNotes.length > 0) process.stdout.write(`Same verdict, other first differing paths in real n8n:\n${pathNotes.join('\n')}\n`);
	const unknown = outcomes.filter((o) => o.engine === undefined).map((o) => o.id);
	assert.deepEqual(unknown, [], 'every sampled case has a verdict in results.json (run the engine suite with UPDATE_PARITY=1)');
	const mismatches = outcomes
		.filter((o) => !agrees(o.real, o.engine))
		.map((o) => ({
			case: o.id,
			engine: o.engine,
			realN8n: o.real,
			unexplained: o.unexplained.slice(0, 6).map((d) => ({ path: d.path, reference: preview(d.reference), resilient: preview(d.resilient) })),
		}));
	assert.deepEqual(mismatches, [], 'a case judged otherwise in real n8n than in the engine suite');
});

function preview(value) {
	const s = JSON.stringify(value);
	return s === undefined ? '(absent)' : s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
