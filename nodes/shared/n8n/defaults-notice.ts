/**
 * What an option group does before the user adds anything to it, said in the panel. n8n shows an
 * empty collection as "No properties" (its defaults apply, unseen); n8n's own nodes say what
 * matters there with a `notice` above the parameter, and so do these. The text is written from the
 * options' own `default`s, which come from the defaults the runtime uses (core/defaults.ts,
 * the traffic limits' *_DEFAULTS): a changed default changes the notice with it.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { formatDuration } from '../core/retry-story';

/** An option shown alone, or a switch with the options that tune it, shown in brackets after it. */
type NoticeEntry = string | { name: string; details: string[] };

/** The label without its unit ("Base Delay (Ms)" -> "Base Delay") or its group ("Hold: Failures in a Row" -> "Failures in a Row"). */
function labelOf(option: INodeProperties, inGroup: boolean): string {
	const label = option.displayName.replace(/\s*\([^)]*\)$/, '');
	return inGroup ? label.replace(/^[^:]*:\s*/, '') : label;
}

/** An option's default in words: on/off, a duration, a percentage, the chosen value's name, or "none" for 0 and empty. */
export function defaultInWords(option: INodeProperties): string {
	const value = option.default as unknown;
	if (option.type === 'boolean') return value === true ? 'on' : 'off';
	if (option.type === 'options') {
		const chosen = (option.options as INodePropertyOptions[] | undefined)?.find((o) => o.value === value);
		if (!chosen) throw new Error(`option "${option.name}": its default ${JSON.stringify(value)} is none of its values`);
		return chosen.name;
	}
	if (value === 0 || value === '') return 'none';
	if (option.type === 'number' && / \(Ms\)$/.test(option.displayName)) return formatDuration(value as number);
	if (option.type === 'number' && / \(%\)$/.test(option.displayName)) return `${String(value)}%`;
	if (typeof value === 'number' || typeof value === 'string') return String(value);
	throw new Error(`option "${option.name}": a ${option.type} default cannot be said in a notice`);
}

function optionNamed(collection: INodeProperties, name: string): INodeProperties {
	const option = (collection.options as INodeProperties[]).find((o) => o.name === name);
	if (!option) throw new Error(`"${collection.displayName}" has no option "${name}"`);
	return option;
}

function entryText(collection: INodeProperties, entry: NoticeEntry): string {
	if (typeof entry === 'string') {
		const option = optionNamed(collection, entry);
		return `${labelOf(option, false)}: ${defaultInWords(option)}`;
	}
	const head = optionNamed(collection, entry.name);
	const details = entry.details.map((name) => optionNamed(collection, name)).map((o) => `${labelOf(o, true)} ${defaultInWords(o)}`);
	return `${labelOf(head, false)}: ${defaultInWords(head)} (${details.join(', ')})`;
}

/**
 * A notice for above `collection`, shown where it is shown, naming the options of `entries` with
 * their defaults: "Defaults (add an option to change one): Base Delay: 1 s; Jitter: Full; ...".
 */
export function defaultsNotice(collection: INodeProperties, entries: NoticeEntry[]): INodeProperties {
	return {
		displayName: `Defaults (add an option to change one): ${entries.map((entry) => entryText(collection, entry)).join('; ')}.`,
		name: `${collection.name}Defaults`,
		type: 'notice',
		default: '',
		...(collection.displayOptions ? { displayOptions: collection.displayOptions } : {}),
	};
}
