import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * OAuth2 for Resilient HTTP Request. n8n's `httpRequestWithAuthentication` applies OAuth2 only for
 * credential types that *extend* `oAuth2Api`; given the generic "OAuth2 API" type itself it sends
 * the request without a token (checked in n8n 2.41.1). This type extends it and adds nothing, so it
 * has the same fields, grant types and token refresh as the generic one.
 */
export class ResilientHttpOAuth2Api implements ICredentialType {
	name = 'resilientHttpOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Resilient HTTP OAuth2 API';

	icon = { light: 'file:resilientHttpOAuth2.svg', dark: 'file:resilientHttpOAuth2.dark.svg' } as const;

	documentationUrl = 'https://github.com/n8n-nodes-resilient-http/n8n-nodes-resilient-http/blob/main/docs/authentication.md';

	properties: INodeProperties[] = [];
}
