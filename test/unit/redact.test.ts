import { basicAuthForms, createRedactor, headerSecrets, MIN_SECRET_LENGTH, REDACTED, redactError, urlSecrets, urlUserinfo, wireForms } from '../../nodes/shared/core/redact';

describe('createRedactor: known secret values', () => {
	const redactor = createRedactor({ secrets: ['s3cr3t value/+&', 'tok_ABCDEF'] });

	it('replaces a secret wherever it appears, in every wire form', () => {
		expect(redactor.text('token tok_ABCDEF was refused')).toBe(`token ${REDACTED} was refused`);
		for (const form of wireForms('s3cr3t value/+&')) expect(redactor.text(`x${form}x`)).toBe(`x${REDACTED}x`);
		expect(wireForms('s3cr3t value/+&')).toEqual(expect.arrayContaining(['s3cr3t%20value%2F%2B%26', 's3cr3t+value%2F%2B%26']));
	});

	it('replaces the longer of two overlapping secrets whole', () => {
		const r = createRedactor({ secrets: ['abcd', 'abcdefgh'] });
		expect(r.text('abcdefgh')).toBe(REDACTED);
	});

	it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters and empty ones`, () => {
		const r = createRedactor({ secrets: ['7', 'abc', '', undefined, '   '] });
		expect(r.text('Gave up after 7 attempts: abc')).toBe('Gave up after 7 attempts: abc');
	});

	it('hides Basic auth in base64 too', () => {
		const r = createRedactor({ secrets: ['alice', 'pa55word', ...basicAuthForms('alice', 'pa55word')] });
		const header = `Basic ${Buffer.from('alice:pa55word').toString('base64')}`;
		expect(r.text(`sent ${header.slice(6)}`)).toBe(`sent ${REDACTED}`);
		expect(basicAuthForms('', '')).toEqual([]);
	});
});

describe('createRedactor: patterns', () => {
	const redactor = createRedactor({ headerNames: ['X-Custom-Key'], queryNames: ['my_auth'] });

	it.each([
		['the userinfo of a URL', 'connect to http://bob:hunter2@proxy.example:3128 failed', `connect to http://${REDACTED}@proxy.example:3128 failed`],
		['a token as the userinfo', 'git https://ghp_tok@github.com/x', `git https://${REDACTED}@github.com/x`],
		['an auth-like query parameter', 'GET https://api.example/x?page=2&api_key=k-123&Token=t9#top', `GET https://api.example/x?page=2&api_key=${REDACTED}&Token=${REDACTED}#top`],
		['the credential query parameter', '/q?my_auth=zzz', `/q?my_auth=${REDACTED}`],
		['an Authorization header in text', 'Authorization: Bearer eyJhbGciOi.abc', `Authorization: ${REDACTED}`],
		['headers in a JSON text', '{"authorization":"Bearer abc","accept":"*/*"}', `{"authorization":"${REDACTED}","accept":"*/*"}`],
		['the credential header', "headers: { 'X-Custom-Key': 'v-1' }", `headers: { 'X-Custom-Key': '${REDACTED}' }`],
		['a cookie', 'Cookie: session=abc; theme=dark', `Cookie: ${REDACTED}`],
		['a Set-Cookie line', 'Set-Cookie: sid=abc; HttpOnly', `Set-Cookie: ${REDACTED}`],
		['an inspected object', "{ authorization: 'Bearer abc', accept: 'json' }", `{ authorization: '${REDACTED}', accept: 'json' }`],
		['a header line in a multi-line text', 'GET /x\r\nX-Api-Key: k1\r\nAccept: */*', `GET /x\r\nX-Api-Key: ${REDACTED}\r\nAccept: */*`],
	])('hides %s', (_what, input, expected) => {
		expect(redactor.text(input)).toBe(expected);
	});

	it.each([
		'Authorization failed - please check your credentials',
		'Gave up after 5 attempts in 7.5 s: last response 503 Service Unavailable',
		'https://example.com/path?page=2&email=a@b.c',
		'The response is not valid JSON',
		'Parameter "Header Parameters" has an invalid value for header "Authorization": it contains control characters (item 1)',
	])('leaves ordinary text alone: %s', (text) => {
		expect(redactor.text(text)).toBe(text);
	});
});

describe('createRedactor: values', () => {
	it('redacts every string of a deep copy and hides header-named keys; the input is untouched', () => {
		const r = createRedactor({ secrets: ['k-secret-1'] });
		const input = { message: 'bad k-secret-1', nested: [{ headers: { Authorization: 'Bearer x', 'set-cookie': ['a=b'], accept: 'json' } }], n: 3, empty: null };
		const out = r.value(input);
		expect(out).toEqual({ message: `bad ${REDACTED}`, nested: [{ headers: { Authorization: REDACTED, 'set-cookie': REDACTED, accept: 'json' } }], n: 3, empty: null });
		expect(input.message).toBe('bad k-secret-1');
	});

	it('survives cycles, and copies an object shared by two fields twice', () => {
		const a: Record<string, unknown> = { x: 'k-secret-1' };
		a.self = a;
		expect(createRedactor({ secrets: ['k-secret-1'] }).value(a)).toEqual({ x: REDACTED, self: '[circular]' });
		const shared = { y: 'k-secret-1' };
		expect(createRedactor({ secrets: ['k-secret-1'] }).value({ a: shared, b: shared })).toEqual({ a: { y: REDACTED }, b: { y: REDACTED } });
	});

});

describe('secrets of a request', () => {
	it('urlSecrets: userinfo and auth-like query values, decoded', () => {
		expect(urlSecrets('https://me:p%40ss@h.example/x?a=1&access_token=t%2B1&custom=c', ['custom'])).toEqual(['me', 'p@ss', 't+1', 'c']);
		expect(urlSecrets('not a url ?key=v1')).toEqual(['v1']);
	});

	it('headerSecrets: sensitive headers whole, their token, each cookie value', () => {
		expect(headerSecrets({ Authorization: 'Bearer tok', Cookie: 'a=1; b=2', Accept: 'json', 'X-Mine': 'm' }, ['x-mine'])).toEqual(['Bearer tok', 'tok', 'a=1; b=2', '1', '2', 'm']);
	});
});

describe('redactError', () => {
	it('redacts message, description, stack, messages and causes in place', () => {
		const r = createRedactor({ secrets: ['k-secret-1'] });
		const cause = new Error('inner k-secret-1');
		const error = Object.assign(new Error('outer k-secret-1', { cause }), { description: 'see k-secret-1', messages: ['k-secret-1'] });
		redactError(error, r);
		expect(JSON.stringify([error.message, error.description, error.stack, error.messages, cause.message, cause.stack])).not.toContain('k-secret-1');
		expect(error.message).toBe(`outer ${REDACTED}`);
	});
});

describe('a bearer token quoted without its header name', () => {
	it('is hidden although no value list knows it (a token fetched during the request)', () => {
		const redactor = createRedactor();
		expect(redactor.text('rejected Bearer eyJhbGciOi.J9-x_y~z+/== for /r')).toBe(`rejected Bearer ${REDACTED} for /r`);
		expect(redactor.text('bearer abc123def')).toBe(`bearer ${REDACTED}`);
		// words after the scheme are no token
		expect(redactor.text("the Bearer Auth credential's Bearer Token is empty")).toBe("the Bearer Auth credential's Bearer Token is empty");
	});
});

describe('the user and password of a URL', () => {
	it('are read decoded, a user without a password too', () => {
		expect(urlUserinfo('http://url-user:p%40ss@example.com/r')).toEqual({ user: 'url-user', password: 'p@ss' });
		expect(urlUserinfo('http://only-user@example.com/')).toEqual({ user: 'only-user', password: '' });
		expect(urlUserinfo('http://example.com/')).toBeUndefined();
	});
});
