import type { INodeProperties } from 'n8n-workflow';
import { PREDEFINED_CREDENTIAL_TYPES } from '../auth/generated/predefined-credentials';

/** The values of Authentication other than the one named: what hides the other path's parameters and credentials. */
const AUTHENTICATION_VALUES = ['none', 'predefinedCredentialType', 'genericCredentialType'] as const;
type AuthenticationValue = (typeof AUTHENTICATION_VALUES)[number];
export function otherThan(value: AuthenticationValue): AuthenticationValue[] {
	return AUTHENTICATION_VALUES.filter((v) => v !== value);
}

/** Predefined types offered in the Credential Type list, by display name as n8n's editor sorts them. */
const credentialTypeOptions = [...PREDEFINED_CREDENTIAL_TYPES]
	.sort((a, b) => a.displayName.localeCompare(b.displayName, 'en', { sensitivity: 'base' }))
	.map((type) => ({ name: type.displayName, value: type.name }));

/**
 * Authentication as HTTP Request (v4) names and stores it. Every condition on Authentication is a
 * `hide`: n8n's editor hides any parameter named in the `show` of a parameter that credentials
 * depend on (see genericCredential() in ResilientHttpRequest.node.ts), and Authentication must stay
 * in the panel.
 */
export const authenticationProperties: INodeProperties[] = [
	{
		displayName: 'Authentication',
		name: 'authentication',
		noDataExpression: true,
		type: 'options',
		options: [
			{ name: 'None', value: 'none' },
			{
				name: 'Predefined Credential Type',
				value: 'predefinedCredentialType',
				description: "A credential of one of n8n's services (Stripe, HubSpot, Notion, OpenAI, Slack, Google, ...): the same ones the HTTP Request node uses",
			},
			{
				name: 'Generic Credential Type',
				value: 'genericCredentialType',
				description: 'Basic, Bearer, Digest, Header, Query or Custom Auth, OAuth1 or OAuth2: the same credentials the HTTP Request node uses',
			},
		],
		default: 'none',
	},
	{
		// HTTP Request's is a `credentialsSelect`, a type the editor renders for its own nodes'
		// parameter named so; here a plain searchable list of the same types, each value selecting
		// one declared credential (predefinedCredential() in ResilientHttpRequest.node.ts)
		displayName: 'Credential Type',
		name: 'nodeCredentialType',
		type: 'options',
		noDataExpression: true,
		required: true,
		default: '',
		placeholder: 'Select a credential type',
		description: 'The service whose credential signs the request, as in the HTTP Request node',
		options: credentialTypeOptions,
		displayOptions: { hide: { authentication: otherThan('predefinedCredentialType') } },
	},
	{
		displayName: 'Make sure you have specified the scope(s) for the Service Account in the credential',
		name: 'googleApiWarning',
		type: 'notice',
		default: '',
		displayOptions: { show: { nodeCredentialType: ['googleApi'] }, hide: { authentication: otherThan('predefinedCredentialType') } },
	},
	{
		// n8n's editor hides this parameter and offers its values in the credential section instead
		// (one credential picker for every kind, and a "Connect using" choice when a credential is
		// created): see genericCredential() in ResilientHttpRequest.node.ts. `hide`, not `show`, keeps
		// Authentication itself in the panel.
		displayName: 'Generic Auth Type',
		name: 'genericAuthType',
		type: 'options',
		noDataExpression: true,
		required: true,
		displayOptions: { hide: { authentication: otherThan('genericCredentialType') } },
		options: [
			{ name: 'Basic Auth', value: 'httpBasicAuth' },
			{ name: 'Bearer Auth', value: 'httpBearerAuth' },
			{ name: 'Custom Auth', value: 'httpCustomAuth' },
			{ name: 'Digest Auth', value: 'httpDigestAuth' },
			{ name: 'Header Auth', value: 'httpHeaderAuth' },
			{ name: 'OAuth1 API', value: 'oAuth1Api' },
			{ name: 'OAuth2 API', value: 'oAuth2Api' },
			{ name: 'Query Auth', value: 'httpQueryAuth' },
			{ name: 'Resilient HTTP OAuth2 API', value: 'resilientHttpOAuth2Api', description: "This package's OAuth2 credential (the same fields as n8n's OAuth2 API)" },
			{ name: 'Simplified Custom Auth', value: 'httpTemplatedCustomAuth' },
		],
		default: 'httpHeaderAuth',
	},
	{
		// A parameter of type "credentials" is where n8n's editor puts the node's credential pickers:
		// here, right below Authentication, as in HTTP Request. It holds no value.
		displayName: 'Credential to connect with',
		name: 'credential',
		type: 'credentials',
		default: '',
		displayOptions: { hide: { authentication: ['none'] } },
	},
	{
		displayName: 'SSL Certificates',
		name: 'provideSslCertificates',
		type: 'boolean',
		default: false,
		isNodeSetting: true,
		description: 'Whether to present a client certificate (an SSL Certificates credential: CA, certificate, private key, passphrase)',
	},
	{
		displayName: "Provide certificates in node's 'Credential for SSL Certificates' parameter",
		name: 'provideSslCertificatesNotice',
		type: 'notice',
		default: '',
		isNodeSetting: true,
		displayOptions: { show: { provideSslCertificates: [true] } },
	},
	{
		displayName: 'SSL Certificate',
		name: 'sslCertificate',
		type: 'credentials',
		default: '',
		displayOptions: { show: { provideSslCertificates: [true] } },
	},
];
