/**
 * The one grammar of every parameter that names a place in JSON: a JSON body's field names (HTTP
 * Request sets them with lodash's `set`), Optimize Response's Field Containing Data and fields
 * (HTTP Request Tool reads them with lodash's `get`) and Fields to Hash. A path reads as lodash's
 * `toPath` reads it: `customer.name`, `items[0].id`, `a["x.y"]` (a quoted key may hold dots and
 * brackets), `a..b` (an empty key between the dots). Pure: no n8n, no lodash.
 *
 * A key that could reach an object's prototype (`__proto__`, `constructor`, `prototype`) is never
 * followed: reading gives undefined, unsetting does nothing, setting keeps the path as one field.
 */

/** A step of a path: a name, or an array index written in brackets (`[0]`). */
export type PathKey = string | number;

/** lodash's rePropName: a name, a bracketed number or quoted key, or an empty key between separators. */
const PATH_KEY = /[^.[\]]+|\[(?:(-?\d+(?:\.\d+)?)|(["'])((?:(?!\2)[^\\]|\\.)*?)\2)\]|(?=(?:\.|\[\])(?:\.|\[\]|$))/g;
const ESCAPED = /\\(\\)?/g;
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;
const PROTOTYPE_KEYS = new Set<PathKey>(['__proto__', 'constructor', 'prototype']);

/** The keys of a path, as lodash's `toPath` gives them, a bracketed array index as a number. */
export function parsePath(path: string): PathKey[] {
	const keys: PathKey[] = path.startsWith('.') ? [''] : [];
	for (const [match, number, quote, quoted] of path.matchAll(PATH_KEY)) {
		if (quote !== undefined) keys.push(quoted.replace(ESCAPED, '$1'));
		else if (number !== undefined) keys.push(ARRAY_INDEX.test(number) && Number.isSafeInteger(Number(number)) ? Number(number) : number);
		else keys.push(match);
	}
	return keys;
}

type Container = Record<PathKey, unknown>;

function isContainer(value: unknown): value is Container {
	return typeof value === 'object' && value !== null;
}

function reachesPrototype(keys: PathKey[]): boolean {
	return keys.some((key) => PROTOTYPE_KEYS.has(key));
}

function valueAtKeys(value: unknown, keys: PathKey[]): unknown {
	let node = value;
	for (const key of keys) {
		if (!isContainer(node) || PROTOTYPE_KEYS.has(key) || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
		node = node[key];
	}
	return node;
}

/** The value at a path, through objects' and arrays' own fields only; undefined when a step is missing. */
export function getPath(value: unknown, path: string): unknown {
	return valueAtKeys(value, parsePath(path));
}

/**
 * Sets the value at a path, making the objects and arrays on the way: an array where the next key
 * is a bracketed index (`items[0]`), an object otherwise (`items.0` too, unlike lodash). A path of
 * one key, or one that would reach a prototype, is kept as one field named by the whole path.
 */
export function setPath(target: Container, path: string, value: unknown): void {
	const keys = parsePath(path);
	if (keys.length <= 1 || reachesPrototype(keys)) {
		target[path] = value;
		return;
	}
	let node = target;
	for (const [index, key] of keys.slice(0, -1).entries()) {
		const existing = node[key];
		if (!isContainer(existing)) node[key] = typeof keys[index + 1] === 'number' ? [] : {};
		node = node[key] as Container;
	}
	node[keys[keys.length - 1]] = value;
}

/** Removes the field at a path, when there is one. */
export function unsetPath(value: unknown, path: string): void {
	const keys = parsePath(path);
	if (keys.length === 0 || reachesPrototype(keys)) return;
	const parent = valueAtKeys(value, keys.slice(0, -1));
	if (isContainer(parent)) delete parent[keys[keys.length - 1]];
}
