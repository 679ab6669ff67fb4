/**
 * The parameters of one run, as the items' configs read them. A parameter whose value holds no
 * expression is the same for every item: n8n reads it once for the run and each item gets a copy.
 * One with an expression anywhere in it is read for each item, as n8n does.
 *
 * Why: each n8n read of a parameter looks up the node type, gathers the expression keys and walks
 * the value. Reading an item's config takes about twenty reads and only the URL is usually an
 * expression. In a profile of n8n at 5,000 items these reads cost about as much as evaluating the
 * URL's expression (issue 24).
 *
 * An expression's value for an item is kept when it is a string (up to PER_ITEM_STRING_MAX
 * characters), a number or a boolean, and read again it is that value: the redactor of a failed
 * item reads the URL and the auth parameters after its config did, and must hide what the request
 * carried (an expression with `$now` or a random part gives another value each time), without
 * evaluating the URL a second time. Objects are read again: a JSON body kept for every item would
 * double the memory the bodies take.
 */
import { deepCopy, type IExecuteFunctions, type INodeParameters, type NodeParameterValueType } from 'n8n-workflow';

type GetNodeParameter = IExecuteFunctions['getNodeParameter'];

/** n8n's test for an expression (a string that starts with "="), anywhere in the value. */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (typeof value === 'object' && value !== null) return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * The value at a dotted path (`options.timeout`), as n8n finds it before the fallback applies;
 * `unknown` for a path this reader does not follow (an index, `a[0]`): such a read goes to n8n.
 */
function rawAt(parameters: INodeParameters, name: string): { found: boolean; value?: unknown } | 'unknown' {
	if (name.includes('[')) return 'unknown';
	let value: unknown = parameters;
	for (const part of name.split('.')) {
		if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, part)) return { found: false };
		value = (value as Record<string, unknown>)[part];
	}
	return { found: true, value };
}

/** Longest string value of an expression kept per item (a raw body built by an expression is not kept). */
export const PER_ITEM_STRING_MAX = 2048;

/** A value kept per item: small, immutable, the same whoever reads it. */
function keptPerItem(value: unknown): boolean {
	return typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= PER_ITEM_STRING_MAX);
}

/** A read's key among the run's reads of one parameter: its fallback and options. */
function readKey(fallback: unknown, options: unknown): string {
	if (options === undefined && (typeof fallback !== 'object' || fallback === null)) return `${typeof fallback}:${String(fallback)}`;
	return `${JSON.stringify(fallback) ?? ''}\u0000${JSON.stringify(options) ?? ''}`;
}

/** `ctx` with a getNodeParameter that reads each expression-free parameter once for the run; `parameters`: its node's, as stored. */
export function runParameters(ctx: IExecuteFunctions, parameters: INodeParameters): IExecuteFunctions {
	const read = ctx.getNodeParameter.bind(ctx) as (...args: unknown[]) => unknown;
	// per parameter: undefined when it is read per item, else its reads so far by readKey
	const byName = new Map<string, Map<string, unknown> | undefined>();
	// the per-item reads kept (keptPerItem), by name, item and readKey
	const perItem = new Map<string, unknown>();
	const cached = ((name: string, itemIndex: number, fallback?: unknown, options?: unknown) => {
		if (!byName.has(name)) {
			const raw = rawAt(parameters, name);
			// a missing value is the fallback, which is ours and holds no expression
			byName.set(name, raw === 'unknown' || (raw.found && holdsExpression(raw.value)) ? undefined : new Map());
		}
		const once = byName.get(name);
		const key = readKey(fallback, options);
		if (once === undefined) {
			const itemKey = `${name}\u0000${itemIndex}\u0000${key}`;
			if (perItem.has(itemKey)) return perItem.get(itemKey);
			const value = read(name, itemIndex, fallback, options);
			if (keptPerItem(value)) perItem.set(itemKey, value);
			return value;
		}
		if (!once.has(key)) once.set(key, read(name, itemIndex, fallback, options));
		const value = once.get(key);
		// n8n hands each read a copy of its own: an item's reader may change what it got
		return typeof value === 'object' && value !== null ? deepCopy(value as NodeParameterValueType & object) : value;
	}) as GetNodeParameter;
	return new Proxy(ctx, {
		get(target, property) {
			if (property === 'getNodeParameter') return cached;
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
	});
}
