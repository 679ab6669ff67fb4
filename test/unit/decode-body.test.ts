import { decodeBody } from '../../nodes/ResilientHttpRequest/output/response';

const response = (body: string, contentType = 'text/plain') => ({ statusCode: 200, statusMessage: 'OK', headers: { 'content-type': contentType }, body: Buffer.from(body) });

describe('decodeBody', () => {
	it('a body that is not the JSON asked for: the problem says so without quoting the body (it may echo a credential)', () => {
		const decoded = decodeBody(response('token=sk-live-123456 and more'), 'json');
		expect(decoded).toEqual({ kind: 'invalid-json', problem: 'The body (29 characters, content type "text/plain") cannot be parsed as JSON.' });
	});

	it('autodetect keeps a JSON-typed body that does not parse as text', () => {
		expect(decodeBody(response('{oops', 'application/json'), 'autodetect')).toEqual({ kind: 'text', value: '{oops' });
	});
});
