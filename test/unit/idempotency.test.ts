import { RETRY_DEFAULTS, RETRY_LIMITS } from '../../nodes/shared/core/defaults';
import { headerNameProblem, headerValueProblem, idempotencyKeyProblem } from '../../nodes/shared/core/idempotency';

describe('idempotencyKeyProblem', () => {
	it.each<[string, unknown]>([
		['a UUID', '3f1c9b2e-8d4a-4f6b-9c1e-2a7d5e8f0b13'],
		['one character', 'a'],
		['printable ASCII punctuation', 'order:42/line#7?x=1&y=~!'],
		['inner spaces', 'order 42'],
		['a number', 12345],
		['zero', 0],
		['a negative decimal', -1.5],
		['255 characters', 'k'.repeat(255)],
	])('%s is fine', (_label, key) => {
		expect(idempotencyKeyProblem(key)).toBeUndefined();
	});

	it.each<[string, unknown, string | RegExp]>([
		['empty', '', 'is empty'],
		['whitespace', '   ', 'is empty'],
		['tabs and newlines only', '\t\n', 'is empty'],
		['256 characters', 'k'.repeat(256), 'is 256 characters long; at most 255 are allowed'],
		['far too long', 'k'.repeat(10_000), 'is 10000 characters long; at most 255 are allowed'],
		['a newline (header injection)', 'abc\r\nX-Evil: 1', 'contains control characters'],
		['a tab', 'abc\tdef', 'contains control characters'],
		['NUL', 'abc\u0000', 'contains control characters'],
		['DEL', 'abc\u007f', 'contains control characters'],
		['an accented letter', 'commande-é', /outside printable ASCII/],
		['an emoji', 'key-🔑', /outside printable ASCII/],
		['a non-breaking space', 'a\u00a0b', /outside printable ASCII/],
		['C1 control', 'a\u0085b', /outside printable ASCII/],
		['an object', { id: 1 }, 'must be text, got object'],
		['an array', ['a'], 'must be text, got object'],
		['null', null, 'must be text, got null'],
		['undefined', undefined, 'must be text, got undefined'],
		['a boolean', true, 'must be text, got boolean'],
	])('%s is rejected', (_label, key, problem) => {
		const message = idempotencyKeyProblem(key);
		if (typeof problem === 'string') expect(message).toBe(problem);
		else expect(message).toMatch(problem);
	});

	it('the length limit is the one in RETRY_LIMITS', () => {
		expect(RETRY_LIMITS.idempotencyKeyLength).toBe(255);
		expect(idempotencyKeyProblem('x'.repeat(RETRY_LIMITS.idempotencyKeyLength))).toBeUndefined();
		expect(idempotencyKeyProblem('x'.repeat(RETRY_LIMITS.idempotencyKeyLength + 1))).toBe(`is ${RETRY_LIMITS.idempotencyKeyLength + 1} characters long; at most ${RETRY_LIMITS.idempotencyKeyLength} are allowed`);
	});
});

describe('headerNameProblem', () => {
	it.each([RETRY_DEFAULTS.idempotencyHeader, 'X-Idempotency-Key', 'idempotency-key', 'X_Request_ID', "!#$%&'*+-.^_`|~09azAZ"])('%j is a valid header name', (name) => {
		expect(headerNameProblem(name)).toBeUndefined();
	});

	it.each(['', 'Idempotency Key', 'Key:', 'Key\n', 'Ключ', 'a(b)', 'a/b', 'a"b', 'a,b', 'a@b', ' Key'])('%j is rejected, quoting the name', (name) => {
		expect(headerNameProblem(name)).toBe(`${JSON.stringify(name)} is not a valid HTTP header name: no spaces, control characters, non-ASCII letters or separators such as : ( ) , / " are allowed`);
	});
});

describe('headerValueProblem', () => {
	it.each(['', 'text/plain', 'a b\tc', 'Bearer abc==', '"quoted", list'])('%j is a valid header value', (value) => {
		expect(headerValueProblem(value)).toBeUndefined();
	});

	it.each(['a\r\nX-Injected: 1', 'line\n', 'nul\u0000', 'bell\u0007', 'del\u007f'])('%j is rejected', (value) => {
		expect(headerValueProblem(value)).toMatch(/contains control characters/);
	});
});
