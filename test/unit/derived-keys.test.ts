/** Keys derived from what identifies an item: stable across runs, scoped, hashed, UUID-shaped. */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson, NAME_BASED_UUID_NAMESPACE, derivedIdempotencyKey, fieldValues, idempotencyKeyProblem, parseFieldList } from '../../nodes/shared/core/idempotency';
import { isRetryStory, withoutPackageRecords } from '../../nodes/shared/core/item-records';

const SCOPE = { workflowId: 'wf-1', nodeId: 'node-1' };
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** RFC 9562 appendix B.2, written out independently: SHA-256 of namespace bytes then name, version 8, variant 10. */
function referenceUuidV8(namespace: string, name: string): string {
	const hash = createHash('sha256').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name).digest();
	const bytes = [...hash.subarray(0, 16)];
	bytes[6] = 0x80 | (bytes[6] & 0x0f);
	bytes[8] = 0x80 | (bytes[8] & 0x3f);
	const hex = Buffer.from(bytes).toString('hex');
	return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join('-');
}

describe('derivedIdempotencyKey', () => {
	it('is a name-based UUIDv8 (SHA-256) of the namespace and [version, workflow, node, basis, value], reproducible elsewhere', () => {
		const key = derivedIdempotencyKey(SCOPE, 'fields', { orderId: 1001 });
		expect(key).toMatch(UUID_V8);
		expect(key).toBe(referenceUuidV8(NAME_BASED_UUID_NAMESPACE, '["n8n-nodes-resilient-http/idempotency-key/v1","wf-1","node-1","fields",{"orderId":1001}]'));
		expect(idempotencyKeyProblem(key)).toBeUndefined();
	});

	it('never changes for the same input: pinned, since a change would resend every stored request under a new key', () => {
		expect(derivedIdempotencyKey(SCOPE, 'fields', { orderId: 1001 })).toBe(PINNED.fields);
		expect(derivedIdempotencyKey(SCOPE, 'itemData', { orderId: 1001, amount: 5 })).toBe(PINNED.itemData);
	});

	it('depends on the workflow, the node, the basis and the value; not on the order of fields', () => {
		const base = derivedIdempotencyKey(SCOPE, 'itemData', { a: 1, b: { c: [1, 2], d: 'x' } });
		expect(derivedIdempotencyKey(SCOPE, 'itemData', { b: { d: 'x', c: [1, 2] }, a: 1 })).toBe(base);
		const others = [
			derivedIdempotencyKey({ ...SCOPE, workflowId: 'wf-2' }, 'itemData', { a: 1, b: { c: [1, 2], d: 'x' } }),
			derivedIdempotencyKey({ ...SCOPE, nodeId: 'node-2' }, 'itemData', { a: 1, b: { c: [1, 2], d: 'x' } }),
			derivedIdempotencyKey(SCOPE, 'fields', { a: 1, b: { c: [1, 2], d: 'x' } }),
			derivedIdempotencyKey(SCOPE, 'itemData', { a: 1, b: { c: [2, 1], d: 'x' } }),
			derivedIdempotencyKey(SCOPE, 'itemData', { a: '1', b: { c: [1, 2], d: 'x' } }),
		];
		expect(new Set([base, ...others]).size).toBe(6);
	});

	it('a Date and the ISO text n8n stores it as give the same key (a retry reads the stored data)', () => {
		const at = new Date('2026-11-29T12:00:00.000Z');
		expect(derivedIdempotencyKey(SCOPE, 'itemData', { at })).toBe(derivedIdempotencyKey(SCOPE, 'itemData', JSON.parse(JSON.stringify({ at }))));
	});

	it('property: equal JSON in any key order gives one key; any change to a value gives another', () => {
		fc.assert(
			fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }), fc.string({ minLength: 1, maxLength: 8 }), (json, extra) => {
				const reversed = Object.fromEntries(Object.entries(json).reverse());
				const key = derivedIdempotencyKey(SCOPE, 'itemData', json);
				expect(derivedIdempotencyKey(SCOPE, 'itemData', reversed)).toBe(key);
				expect(key).toMatch(UUID_V8);
				const field = `${extra}\u0000new`;
				expect(derivedIdempotencyKey(SCOPE, 'itemData', { ...json, [field]: 1 })).not.toBe(key);
			}),
			{ numRuns: 500, seed: 20261129 },
		);
	});

	it('the key never contains the data it was derived from', () => {
		const secret = 'customer@example.com';
		expect(derivedIdempotencyKey(SCOPE, 'fields', { email: secret })).not.toContain('customer');
	});
});

describe('canonicalJson', () => {
	it('sorts keys at every depth and keeps array order', () => {
		expect(canonicalJson({ b: 1, a: [{ y: 1, x: 2 }, 3] })).toBe('{"a":[{"x":2,"y":1},3],"b":1}');
		expect(canonicalJson(undefined)).toBe('null');
		expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
	});
});

describe('Fields to Hash', () => {
	it('parses a comma-separated list, trimmed, deduplicated and sorted', () => {
		expect(parseFieldList(' orderId , customer.email,orderId ')).toEqual({ fields: ['customer.email', 'orderId'] });
	});

	it.each<[unknown, string]>([
		['', 'is empty: list the fields that identify the request, separated by commas'],
		[' , ', 'is empty: list the fields that identify the request, separated by commas'],
		['a..b', 'has an invalid field path "a..b": write a path such as customer.email or lines[0].sku'],
		['.a', 'has an invalid field path ".a": write a path such as customer.email or lines[0].sku'],
		[42, 'must be text (field names separated by commas), got number'],
		[null, 'must be text (field names separated by commas), got null'],
	])('%j is rejected: %s', (text, problem) => {
		expect(parseFieldList(text)).toEqual({ problem });
	});

	it('reads dot paths through objects and arrays, own fields only', () => {
		const json = { customer: { email: 'a@b.c' }, lines: [{ sku: 'X' }] };
		expect(fieldValues(json, ['customer.email', 'lines.0.sku'])).toEqual({ values: { 'customer.email': 'a@b.c', 'lines.0.sku': 'X' } });
		expect(fieldValues(json, ['customer.phone'])).toEqual({ missing: 'customer.phone', empty: false });
		expect(fieldValues(json, ['customer.email.length'])).toEqual({ missing: 'customer.email.length', empty: false });
		expect(fieldValues(json, ['constructor'])).toEqual({ missing: 'constructor', empty: false });
	});

	it('finds items[0].id: the paths of JSON Body and Optimize Response read the same here', () => {
		const json = { items: [{ id: 'A-1' }, { id: 'A-2' }], meta: { 'x.y': 5 } };
		const parsed = parseFieldList('items[0].id, meta["x.y"]');
		expect(parsed).toEqual({ fields: ['items[0].id', 'meta["x.y"]'] });
		if (!('fields' in parsed)) throw new Error(parsed.problem);
		expect(fieldValues(json, parsed.fields)).toEqual({ values: { 'items[0].id': 'A-1', 'meta["x.y"]': 5 } });
		expect(fieldValues({ items: [] }, ['items[0].id'])).toEqual({ missing: 'items[0].id', empty: false });
		expect(parseFieldList('items[].id')).toEqual({ problem: 'has an invalid field path "items[].id": write a path such as customer.email or lines[0].sku' });
	});

	it('dotted paths give the key they always gave: pinned with the code before the paths had one grammar', () => {
		const json = { orderId: 1001, customer: { email: 'a@b.c' }, lines: [{ sku: 'X' }, { sku: 'Y' }] };
		const parsed = parseFieldList('orderId, customer.email, lines.1.sku');
		if (!('fields' in parsed)) throw new Error(parsed.problem);
		const found = fieldValues(json, parsed.fields);
		expect(found).toEqual({ values: { 'customer.email': 'a@b.c', 'lines.1.sku': 'Y', orderId: 1001 } });
		if (!('values' in found)) throw new Error(found.missing);
		expect(derivedIdempotencyKey(SCOPE, 'fields', found.values)).toBe(PINNED.dottedFields);
	});

	it('a missing or empty field is a problem, never a value (every item lacking it would share one key)', () => {
		expect(fieldValues({ orderId: 7, amount: 0 }, ['amount', 'orderId'])).toEqual({ values: { amount: 0, orderId: 7 } });
		expect(fieldValues({ amount: 5 }, ['orderId'])).toEqual({ missing: 'orderId', empty: false });
		expect(fieldValues({ orderId: null }, ['orderId'])).toEqual({ missing: 'orderId', empty: true });
		expect(fieldValues({ orderId: '  ' }, ['orderId'])).toEqual({ missing: 'orderId', empty: true });
		expect(fieldValues({ ok: false }, ['ok'])).toEqual({ values: { ok: false } });
	});
});

describe('withoutPackageRecords: the item data a derived key reads', () => {
	const story = { attempts: 2, maxAttempts: 5, stoppedBecause: 'success', summary: 's', totalDelayMs: 800, elapsedMs: 900, history: [] };
	const annotation = { attempt: 2, maxAttempts: 5, firstFailureAt: '2026-11-29T12:00:00.000Z' };

	it('drops retry stories and Backoff Delay annotations, whatever their field is named, and our error record', () => {
		const json = { orderId: 1, _retry: story, loop: annotation, error: { message: 'Gave up', reason: 'attempts-exhausted', status: 503 } };
		expect(withoutPackageRecords(json)).toEqual({ orderId: 1 });
		expect(isRetryStory(story)).toBe(true);
	});

	it("keeps the user's own fields, an error field that is not ours among them", () => {
		const json = { orderId: 1, error: { message: 'card declined', code: 'E1' }, attempts: 3, history: [] };
		expect(withoutPackageRecords(json)).toEqual(json);
	});
});

const PINNED = {
	fields: '81626353-2e62-88d8-a1ba-0b7fe31a88cf',
	itemData: 'fe7ab578-ac28-8b65-9125-d170b03ec330',
	dottedFields: '261308e6-cadf-87e6-b60b-459e1eeb3666',
};
