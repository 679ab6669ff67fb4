/**
 * How the Traffic Control node's *API* parameter names an API's controllers, in whatever form a
 * user has at hand: a key from Get State (`api:…`), the label Get State shows (a host, with its
 * port when the URL had one, or "its scope"), a host with or without a port, host:port with a
 * path, a URL or an origin. A controller's label is `url.host` (api-name.ts): the scheme is not
 * kept, so a default port (80 or 443) given matches a label without one.
 */
import { isApiKey } from '../shared/n8n/traffic/api-name';

/** A host as a filter reads it: lower-case name, and its port ('' = the default one, 'any' = not given). */
interface HostFilter {
	hostname: string;
	port: string;
}

export interface ApiFilter {
	/** What the user typed, trimmed: for the messages. */
	text: string;
	/** Lower-cased: a key or a label matches it whole. */
	lowered: string;
	/** The host it names, when it reads as one. */
	host?: HostFilter;
}

const DEFAULT_PORTS = new Set(['80', '443']);
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A port as a label would carry it: the default ports (which url.host drops) are none. */
const portOf = (port: string) => (DEFAULT_PORTS.has(port) ? '' : port);

/** host[:port][/path…] without a scheme, as WHATWG's URL reads a host (IDN, IPv6 brackets, case); undefined when it is none. */
function hostWithoutScheme(value: string): HostFilter | undefined {
	const authority = value.replace(/^\/\//, '').split(/[/?#]/, 1)[0];
	if (authority === '' || /[\s@]/.test(authority)) return undefined;
	try {
		// http:// only to borrow the host parser: the port is read off the text, as http:// drops 80
		const url = new URL(`http://${authority}`);
		const given = /:(\d+)$/.exec(authority)?.[1];
		return { hostname: url.hostname, port: given === undefined ? 'any' : portOf(String(Number(given))) };
	} catch {
		return undefined;
	}
}

/** The filter the parameter's text makes; throws a URL that does not parse (with a scheme, it is meant as one). */
export function readApiFilter(text: string): ApiFilter {
	const lowered = text.toLowerCase();
	// a key; "api:8080" is a host named api (a container's, say) with its port
	if (isApiKey(lowered)) return { text, lowered };
	if (!HAS_SCHEME.test(text)) return { text, lowered, ...optionalHost(hostWithoutScheme(text)) };
	const url = new URL(text);
	// an origin or a URL names its port: none is the scheme's default
	return { text, lowered, host: { hostname: url.hostname, port: portOf(url.port) } };
}

const optionalHost = (host: HostFilter | undefined) => (host ? { host } : {});

/** Whether the controller with this key and label is one the filter names. */
export function apiMatches(filter: ApiFilter, key: string, label: string | undefined): boolean {
	if (filter.lowered === key || (label !== undefined && filter.lowered === label.toLowerCase())) return true;
	if (filter.host === undefined || label === undefined) return false;
	const labelled = hostWithoutScheme(label);
	if (labelled === undefined || labelled.hostname !== filter.host.hostname) return false;
	return filter.host.port === 'any' || filter.host.port === (labelled.port === 'any' ? '' : labelled.port);
}
