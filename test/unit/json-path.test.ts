/** The one path grammar: read as lodash reads it (differential tests), never reaching a prototype. */
import fc from 'fast-check';
// lodash (there as n8n-workflow's dependency) is what HTTP Request and HTTP Request Tool use; tests only
import _ from 'lodash';
import { getPath, parsePath, setPath, unsetPath, type PathKey } from '../../nodes/shared/core/json-path';

describe('parsePath', () => {
	it.each<[string, PathKey[]]>([
		['name', ['name']],
		['customer.name', ['customer', 'name']],
		['items[0].id', ['items', 0, 'id']],
		['items.0.id', ['items', '0', 'id']],
		['[2][10]', [2, 10]],
		['a["x.y"].b', ['a', 'x.y', 'b']],
		["a['it\\'s']", ['a', "it's"]],
		['a["back\\\\slash"]', ['a', 'back\\slash']],
		['a[b]', ['a', 'b']],
		['a[-1]', ['a', '-1']],
		['a[01]', ['a', '01']],
		['first name.last name', ['first name', 'last name']],
		['a..b', ['a', '', 'b']],
		['.a', ['', 'a']],
		['a.', ['a', '']],
		['a[]', ['a', '']],
		['', []],
	])('%j reads as %j', (path, keys) => {
		expect(parsePath(path)).toEqual(keys);
	});

	it('property: any text reads as lodash toPath reads it (a bracketed index as a number)', () => {
		const text = fc.string({ unit: fc.constantFrom('a', 'b', '0', '1', '-', '.', '[', ']', '"', "'", '\\', ' '), maxLength: 14 });
		fc.assert(
			fc.property(text, (path) => {
				expect(parsePath(path).map(String)).toEqual(_.toPath(path));
			}),
			{ numRuns: 1500, seed: 2026 },
		);
	});
});

/** A path's keys and how each is written: a bracketed index, a bare name, or a quoted name. */
type Step = { index: number } | { name: string; quoted: '"' | "'" | false };

const NAMES = ['a', 'b', 'id', 'first name', 'x.y', 'q"z', "it's", 'b[0]', '0', '1'];
const step: fc.Arbitrary<Step> = fc.oneof(
	fc.record({ index: fc.nat({ max: 3 }) }),
	fc.record({ name: fc.constantFrom(...NAMES), quoted: fc.constantFrom<'"' | "'" | false>('"', "'", false) }),
);

/** Names that the bare form cannot carry (or would read as an index) are quoted. */
function written(steps: Step[]): string {
	return steps
		.map((s, i) => {
			if ('index' in s) return `[${s.index}]`;
			const quote = s.quoted || (/^[^.[\]"'\\]+$/.test(s.name) && !/^\d+$/.test(s.name) ? false : '"');
			if (quote) return `[${quote}${s.name.replace(new RegExp(`[\\\\${quote}]`, 'g'), '\\$&')}${quote}]`;
			return i === 0 ? s.name : `.${s.name}`;
		})
		.join('');
}

const keysOf = (steps: Step[]): PathKey[] => steps.map((s) => ('index' in s ? s.index : s.name));
const path = fc.array(step, { minLength: 1, maxLength: 4 });

/** A path that exists in the value, chosen step by step (so that reads find something often). */
function pathIn(value: unknown, choices: number[]): Step[] {
	const steps: Step[] = [];
	let node = value;
	for (const choice of choices) {
		if (Array.isArray(node) && node.length > 0) {
			steps.push({ index: choice % node.length });
			node = node[choice % node.length];
		} else if (typeof node === 'object' && node !== null && Object.keys(node).length > 0) {
			const name = Object.keys(node)[choice % Object.keys(node).length];
			steps.push({ name, quoted: false });
			node = (node as Record<string, unknown>)[name];
		} else break;
	}
	return steps;
}
const choices = fc.array(fc.nat(), { minLength: 1, maxLength: 4 });

/** JSON whose field names are the paths' names; no strings, which lodash would index into. */
const { json } = fc.letrec<{ json: unknown }>((tie) => ({
	json: fc.oneof(
		{ depthSize: 'small' },
		fc.integer(),
		fc.boolean(),
		fc.constant(null),
		fc.array(tie('json'), { maxLength: 4 }),
		fc.dictionary(fc.constantFrom(...NAMES), tie('json'), { maxKeys: 4 }),
	),
}));

describe('getPath, setPath, unsetPath: what lodash get, set and unset do', () => {
	it('property: every path written in any of its forms reads as its keys', () => {
		fc.assert(
			fc.property(path, (steps) => {
				expect(parsePath(written(steps))).toEqual(keysOf(steps));
				expect(_.toPath(written(steps))).toEqual(keysOf(steps).map(String));
			}),
			{ numRuns: 2000, seed: 2026 },
		);
	});

	it('property: getPath finds what lodash get finds', () => {
		let found = 0;
		fc.assert(
			fc.property(json, path, choices, (value, random, chosen) => {
				const steps = pathIn(value, chosen).length > 0 && chosen[0] % 4 !== 0 ? pathIn(value, chosen) : random;
				const expected = _.get(value, written(steps));
				if (expected !== undefined) found++;
				expect(getPath(value, written(steps))).toEqual(expected);
			}),
			{ numRuns: 1500, seed: 2026 },
		);
		expect(found).toBeGreaterThan(300);
	});

	it('property: setPath builds what lodash set builds (a path of two keys or more, no digits-only name after the first)', () => {
		fc.assert(
			fc.property(fc.dictionary(fc.constantFrom(...NAMES), json, { maxKeys: 4 }), fc.array(step, { minLength: 2, maxLength: 4 }), fc.integer(), (value, steps, v) => {
				// lodash makes an array for items.0 and items["0"] too; setPath only for items[0] (below)
				fc.pre(!steps.slice(1).some((s) => 'name' in s && /^\d+$/.test(s.name)));
				const ours = structuredClone(value);
				setPath(ours, written(steps), v);
				expect(ours).toEqual(_.set(structuredClone(value), written(steps), v));
			}),
			{ numRuns: 1500, seed: 2026 },
		);
	});

	it('property: unsetPath removes what lodash unset removes', () => {
		fc.assert(
			fc.property(json, path, choices, (value, random, chosen) => {
				const steps = pathIn(value, chosen).length > 0 && chosen[0] % 4 !== 0 ? pathIn(value, chosen) : random;
				const ours = structuredClone(value);
				unsetPath(ours, written(steps));
				const theirs = structuredClone(value);
				_.unset(theirs, written(steps));
				expect(ours).toEqual(theirs);
			}),
			{ numRuns: 1500, seed: 2026 },
		);
	});
});

describe('where the grammar departs from lodash, on purpose', () => {
	it("reads own fields only: not a string's characters or length, not inherited methods", () => {
		expect(getPath({ a: 'xyz' }, 'a[0]')).toBeUndefined();
		expect(getPath({ a: 'xyz' }, 'a.length')).toBeUndefined();
		expect(getPath({ a: [1, 2] }, 'a.length')).toBe(2);
		expect(getPath({}, 'toString')).toBeUndefined();
		expect(getPath({ lines: [{ sku: 'X' }] }, 'lines.0.sku')).toBe('X');
	});

	it('a path of one key sets the field named by the whole path', () => {
		const body: Record<string, unknown> = {};
		setPath(body, 'name', 1);
		setPath(body, '[0]', 2);
		expect(body).toEqual({ name: 1, '[0]': 2 });
	});

	it('only a bracketed index makes an array: items.0 is a field named "0" (as before the one grammar)', () => {
		const body: Record<string, unknown> = {};
		setPath(body, 'items[0].id', 1);
		setPath(body, 'other.0.id', 2);
		expect(body).toEqual({ items: [{ id: 1 }], other: { '0': { id: 2 } } });
	});

	it('replaces a value that is not an object on the way, keeps one that is', () => {
		const body: Record<string, unknown> = { a: 'text', b: { keep: true } };
		setPath(body, 'a.x', 1);
		setPath(body, 'b.y', 2);
		expect(body).toEqual({ a: { x: 1 }, b: { keep: true, y: 2 } });
	});
});

describe('a path never reaches a prototype', () => {
	const unsafe = ['__proto__.polluted', 'constructor.prototype.polluted', 'a.constructor', 'a["__proto__"].polluted', 'a.prototype'];

	it.each(unsafe)('%j: setPath keeps it as one field, getPath reads nothing, unsetPath removes nothing', (p) => {
		const target: Record<string, unknown> = { a: { constructor: 1 }, prototype: 2 };
		setPath(target, p, 'x');
		expect(Object.prototype.hasOwnProperty.call(target, p)).toBe(true);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		expect(getPath(target, p)).toBeUndefined();
		unsetPath(target, p);
		expect(target).toMatchObject({ a: { constructor: 1 }, prototype: 2 });
	});

	it('even an own field of that name is not followed (JSON.parse makes __proto__ an own field)', () => {
		const parsed = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}') as unknown;
		expect(getPath(parsed, '__proto__.x')).toBeUndefined();
		expect(getPath(parsed, 'constructor')).toBeUndefined();
	});
});
