/**
 * The top-level parameters whose default differs between HTTP Request (v3 to v4.x, n8n 2.41.1) and
 * Resilient HTTP Request. n8n saves a parameter only when it differs from its node's default, so a
 * migrated node that never set one of these would read this node's default and send something else
 * (a raw body's Content Type: `text/plain` here, none in HTTP Request). The migrate command writes
 * HTTP Request's value into such a node. test/unit/migrate-defaults.test.ts derives this list from
 * n8n-nodes-base and fails when the two part.
 */
type Json = Record<string, unknown>;

interface DefaultDifference {
	name: string;
	displayName: string;
	httpRequestDefault: unknown;
	resilientDefault: unknown;
	/** HTTP Request's displayOptions.show: the parameter counts only where the node shows it. */
	shownWhen: Record<string, unknown[]>;
}

export const DEFAULT_DIFFERENCES: readonly DefaultDifference[] = [
	{ name: 'rawContentType', displayName: 'Content Type', httpRequestDefault: '', resilientDefault: 'text/plain', shownWhen: { sendBody: [true], contentType: ['raw'] } },
	{ name: 'inputDataFieldName', displayName: 'Input Data Field Name', httpRequestDefault: '', resilientDefault: 'data', shownWhen: { sendBody: [true], contentType: ['binaryData'] } },
	{ name: 'genericAuthType', displayName: 'Generic Auth Type', httpRequestDefault: '', resilientDefault: 'httpHeaderAuth', shownWhen: { authentication: ['genericCredentialType'] } },
];

/** HTTP Request's defaults of the parameters the conditions above read (checked by the same test). */
export const CONDITION_DEFAULTS: Readonly<Record<string, unknown>> = { sendBody: false, contentType: 'json', authentication: 'none' };

/** Whether HTTP Request shows (so reads) the parameter for these saved parameters. */
export function isShown(difference: DefaultDifference, parameters: Json): boolean {
	return Object.entries(difference.shownWhen).every(([name, values]) => values.includes(parameters[name] ?? CONDITION_DEFAULTS[name]));
}
