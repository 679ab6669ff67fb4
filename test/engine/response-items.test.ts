/**
 * How a response becomes items, where the node deliberately differs from n8n's HTTP Request (the
 * deviations of test/engine/differential/deviations.ts, each pinned here) and where matching it
 * took reading n8n's own helpers (charsets, file names). The differential suite compares the rest.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { gzipSync } from 'node:zlib';
import type { LocalResponse } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();
const NO_STORY = { retryOptions: { retryStoryField: '' } };
const responseOption = (response: IDataObject) => ({ response: { response } });

async function itemsFor(parameters: IDataObject, items: INodeExecutionData[] = [{ json: { id: 7 } }]): Promise<INodeExecutionData[]> {
	const run = await runHttp(httpWorkflow({ ...NO_STORY, ...parameters }), items, createVirtualRuntime());
	expect(run.status).toBe('success');
	return run.outputOf('HTTP');
}

describe('response items: deliberate differences from HTTP Request', () => {
	it('JSON scalars go under the output field, data (HTTP Request emits json: 1); null is {} as in HTTP Request', async () => {
		const upstream = await server(() => ({ body: [1, 'two', null, { n: 3 }] }));
		const items = await itemsFor({ url: `${upstream.url}/r`, options: {} });
		expect(items.map((item) => item.json)).toEqual([{ data: 1 }, { data: 'two' }, {}, { n: 3 }]);
	});

	it('Response Format JSON with an empty body answers {} (HTTP Request fails the run)', async () => {
		const upstream = await server(() => ({ status: 204 }));
		const items = await itemsFor({ url: `${upstream.url}/r`, options: responseOption({ responseFormat: 'json' }) });
		expect(items.map((item) => item.json)).toEqual([{}]);
	});

	it('a raw request body does not change how a JSON response is read (HTTP Request emits the stream object)', async () => {
		const upstream = await server(() => ({ body: { ok: 1 } }));
		const items = await itemsFor({ method: 'POST', url: `${upstream.url}/r`, sendBody: true, contentType: 'raw', rawContentType: 'text/plain', body: 'x', options: responseOption({ responseFormat: 'json' }) });
		expect(items.map((item) => item.json)).toEqual([{ ok: 1 }]);
	});

	it('a compressed file is named as an uncompressed one: from its URL, with the URL as directory (HTTP Request: data.json)', async () => {
		const body = JSON.stringify({ a: 1 });
		const upstream = await server((request) => ({ headers: { 'content-type': 'application/json', ...(request.url.includes('gz') ? { 'content-encoding': 'gzip' } : {}) }, body: request.url.includes('gz') ? gzipSync(body) : body }));
		const [compressed] = await itemsFor({ url: `${upstream.url}/export/gz`, options: responseOption({ responseFormat: 'file' }) });
		const [plain] = await itemsFor({ url: `${upstream.url}/export/plain`, options: responseOption({ responseFormat: 'file' }) });
		expect(compressed.binary?.data).toMatchObject({ fileName: 'gz', directory: `${upstream.url}/export/gz`, mimeType: 'application/json', fileExtension: 'json' });
		expect(plain.binary?.data).toMatchObject({ fileName: 'plain', directory: `${upstream.url}/export/plain` });
		expect(Buffer.from(compressed.binary!.data.data, 'base64').toString()).toBe(body);
	});
});

describe('response items: as HTTP Request reads them', () => {
	it('Autodetect decodes text in the charset its Content-Type names', async () => {
		const upstream = await server(() => ({ headers: { 'content-type': 'text/plain; charset=latin1' }, body: Buffer.from('café, niño', 'latin1') }));
		const items = await itemsFor({ url: `${upstream.url}/r`, options: {} });
		expect(items.map((item) => item.json)).toEqual([{ data: 'café, niño' }]);
	});

	it('a file keeps the input item json and binaries and is named after the URL that answered, after a redirect', async () => {
		const upstream = await server((request): LocalResponse => (request.url.startsWith('/start') ? { status: 302, headers: { location: '/files/final-name.pdf' } } : { headers: { 'content-type': 'application/pdf' }, body: Buffer.from('%PDF-1.4\n') }));
		const input = { json: { id: 7 }, binary: { upload: { data: Buffer.from('up').toString('base64'), mimeType: 'text/plain', fileName: 'up.txt' } } };
		const [item] = await itemsFor({ url: `${upstream.url}/start/x.pdf`, options: {} }, [input]);
		expect(item.json).toEqual({ id: 7 });
		expect(item.binary?.upload).toMatchObject({ fileName: 'up.txt' });
		expect(item.binary?.data).toMatchObject({ fileName: 'final-name.pdf', directory: `${upstream.url}/files/final-name.pdf`, mimeType: 'application/pdf' });
	});

	it('a file without a type is text/plain, never sniffed from its bytes', async () => {
		const upstream = await server(() => ({ body: Buffer.from('%PDF-1.4\n') }));
		const [item] = await itemsFor({ url: `${upstream.url}/r`, options: responseOption({ responseFormat: 'file' }) });
		expect(item.binary?.data).toMatchObject({ mimeType: 'text/plain', fileName: 'r' });
	});

	it('Include Response Headers and Status puts a text body under the output field', async () => {
		const upstream = await server(() => ({ headers: { 'content-type': 'text/plain' }, body: 'hello' }));
		const [item] = await itemsFor({ url: `${upstream.url}/r`, options: responseOption({ fullResponse: true }) });
		expect(item.json).toMatchObject({ data: 'hello', statusCode: 200, statusMessage: 'OK' });
		expect(item.json).not.toHaveProperty('body');
	});
});
