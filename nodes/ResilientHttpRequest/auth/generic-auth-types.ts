/**
 * The generic kinds HTTP Request offers (its "Generic Auth Type": n8n's credential types marked
 * `genericAuth`), plus this package's OAuth2 type, kept for workflows that use it.
 */
export const GENERIC_AUTH_TYPES = [
	'httpBasicAuth',
	'httpBearerAuth',
	'httpCustomAuth',
	'httpDigestAuth',
	'httpHeaderAuth',
	'httpQueryAuth',
	'httpTemplatedCustomAuth',
	'oAuth1Api',
	'oAuth2Api',
	'resilientHttpOAuth2Api',
] as const;
export type GenericAuthType = (typeof GENERIC_AUTH_TYPES)[number];

export function isGenericAuthType(value: unknown): value is GenericAuthType {
	return (GENERIC_AUTH_TYPES as readonly unknown[]).includes(value);
}
