import type { IExecuteFunctions, INodeParameters } from 'n8n-workflow';
import { PER_ITEM_STRING_MAX, runParameters } from '../../nodes/ResilientHttpRequest/config/run-parameters';

/**
 * A context whose getNodeParameter reads as n8n does for these values: the value at the path or the
 * fallback, an expression ("=" + a field name) evaluated against the item, a copy each time. It
 * counts its reads by name.
 */
function fakeContext(parameters: INodeParameters, items: Array<Record<string, unknown>>) {
	const reads = new Map<string, number>();
	const evaluate = (value: unknown, i: number): unknown => {
		if (typeof value === 'string' && value.startsWith('=')) return items[i][value.slice(1)];
		if (Array.isArray(value)) return value.map((v) => evaluate(v, i));
		if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, evaluate(v, i)]));
		return value;
	};
	const ctx = {
		getNode: () => ({ name: 'HTTP', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [0, 0], parameters: structuredClone(parameters) }),
		getNodeParameter: (name: string, i: number, fallback?: unknown) => {
			reads.set(name, (reads.get(name) ?? 0) + 1);
			let value: unknown = parameters;
			for (const part of name.replace(/\[(\d+)\]/g, '.$1').split('.')) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
			if (value === undefined) value = fallback;
			if (value === undefined) throw new Error(`Could not get parameter "${name}"`);
			return evaluate(structuredClone(value), i);
		},
		getInputData: () => items.map((json) => ({ json })),
	};
	return { ctx: ctx as unknown as IExecuteFunctions, reads };
}

const PARAMETERS: INodeParameters = {
	method: 'POST',
	url: '=url',
	options: { timeout: 5000, proxy: '' },
	headerParameters: { parameters: [{ name: 'X-Token', value: '=token' }, { name: 'Accept', value: 'application/json' }] },
	sharedLimits: {},
};
const ITEMS = [
	{ url: 'https://a.example/1', token: 't1' },
	{ url: 'https://a.example/2', token: 't2' },
	{ url: 'https://b.example/3', token: 't3' },
];
const NAMES: Array<[string, unknown]> = [
	['method', 'GET'],
	['url', ''],
	['options', {}],
	['options.timeout', 10_000],
	['options.missing', 'fallback'],
	['headerParameters', {}],
	['headerParameters.parameters[0].value', ''],
	['sharedLimits', {}],
	['absent', { a: 1 }],
];

describe('runParameters: each expression-free parameter read once per run', () => {
	test('every item gets what n8n gives it, for every parameter (expression or not, present or missing)', () => {
		const direct = fakeContext(PARAMETERS, ITEMS);
		const cached = runParameters(fakeContext(PARAMETERS, ITEMS).ctx, PARAMETERS);
		for (let i = 0; i < ITEMS.length; i++) {
			for (const [name, fallback] of NAMES) expect([name, i, cached.getNodeParameter(name, i, fallback)]).toEqual([name, i, direct.ctx.getNodeParameter(name, i, fallback)]);
		}
	});

	test('a value without an expression is read from n8n once; one with an expression (anywhere in it) for each item', () => {
		const { ctx, reads } = fakeContext(PARAMETERS, ITEMS);
		const cached = runParameters(ctx, PARAMETERS);
		for (let i = 0; i < ITEMS.length; i++) for (const name of ['method', 'options', 'url', 'headerParameters', 'sharedLimits']) cached.getNodeParameter(name, i, undefined);
		expect(Object.fromEntries(reads)).toEqual({ method: 1, options: 1, sharedLimits: 1, url: 3, headerParameters: 3 });
	});

	test('reads with another fallback are other reads; an indexed path goes to n8n every time', () => {
		const { ctx, reads } = fakeContext(PARAMETERS, ITEMS);
		const cached = runParameters(ctx, PARAMETERS);
		expect(cached.getNodeParameter('absent', 0, 'a')).toBe('a');
		expect(cached.getNodeParameter('absent', 1, 'b')).toBe('b');
		expect(cached.getNodeParameter('absent', 2, 'a')).toBe('a');
		for (let i = 0; i < 3; i++) expect(cached.getNodeParameter('headerParameters.parameters[1].value', i, '')).toBe('application/json');
		expect(Object.fromEntries(reads)).toEqual({ absent: 2, 'headerParameters.parameters[1].value': 3 });
	});

	test('each read gets its own copy: an item that changes what it got changes nothing for the next', () => {
		const cached = runParameters(fakeContext(PARAMETERS, ITEMS).ctx, PARAMETERS);
		const first = cached.getNodeParameter('options', 0, {}) as Record<string, unknown>;
		first.timeout = 1;
		first.added = true;
		expect(cached.getNodeParameter('options', 1, {})).toEqual({ timeout: 5000, proxy: '' });
	});

	test('a read that throws is not kept: the next item reads again (and throws again)', () => {
		const { ctx, reads } = fakeContext(PARAMETERS, ITEMS);
		const cached = runParameters(ctx, PARAMETERS);
		expect(() => cached.getNodeParameter('nowhere', 0)).toThrow('Could not get parameter "nowhere"');
		expect(() => cached.getNodeParameter('nowhere', 1)).toThrow('Could not get parameter "nowhere"');
		expect(reads.get('nowhere')).toBe(2);
	});

	test('an expression is evaluated once per item when its value is a string, a number or a boolean: a second read gets what the first got', () => {
		let evaluations = 0;
		// an expression that gives another value each time it is evaluated ($now, a random part)
		const items = [0, 1].map((n) => ({
			get stamp() {
				evaluations++;
				return `https://a.example/${n}?at=${evaluations}`;
			},
			flag: n === 1,
		}));
		const parameters: INodeParameters = { url: '=stamp', sendBody: '=flag', headerParameters: { parameters: [{ name: 'X-At', value: '=stamp' }] } };
		const { ctx, reads } = fakeContext(parameters, items);
		const cached = runParameters(ctx, parameters);
		const first = [0, 1].map((i) => cached.getNodeParameter('url', i, ''));
		// the redactor reads after every item's config was read
		expect([0, 1].map((i) => cached.getNodeParameter('url', i, ''))).toEqual(first);
		expect([0, 1, 1].map((i) => cached.getNodeParameter('sendBody', i, false))).toEqual([false, true, true]);
		expect(reads.get('url')).toBe(2);
		expect(reads.get('sendBody')).toBe(2);
		// another fallback is another read
		cached.getNodeParameter('url', 0, 'x');
		expect(reads.get('url')).toBe(3);
		// an object is read again (a copy each time, as n8n hands it)
		const headers = cached.getNodeParameter('headerParameters', 0, {});
		expect(cached.getNodeParameter('headerParameters', 0, {})).not.toEqual(headers);
		expect(reads.get('headerParameters')).toBe(2);
	});

	test(`a string longer than ${PER_ITEM_STRING_MAX} characters is not kept (a raw body an expression builds)`, () => {
		const parameters: INodeParameters = { body: '=body' };
		const { ctx, reads } = fakeContext(parameters, [{ body: 'x'.repeat(PER_ITEM_STRING_MAX + 1) }, { body: 'y'.repeat(PER_ITEM_STRING_MAX) }]);
		const cached = runParameters(ctx, parameters);
		for (const i of [0, 0, 1, 1]) cached.getNodeParameter('body', i, '');
		expect(reads.get('body')).toBe(3);
	});

	test("the context's other methods answer as before, on the context itself", () => {
		const { ctx } = fakeContext(PARAMETERS, ITEMS);
		const cached = runParameters(ctx, PARAMETERS);
		expect(cached.getInputData()).toEqual(ctx.getInputData());
		expect(cached.getNode().name).toBe('HTTP');
	});
});
