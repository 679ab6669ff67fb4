import type { IOAuth2Options } from 'n8n-workflow';

/**
 * A credential type HTTP Request offers as "Predefined Credential Type" (generated from the
 * packages n8n ships: generated/predefined-credentials.ts).
 */
export interface PredefinedCredentialType {
	/** The credential type's name, as stored in a node's `credentials` and `nodeCredentialType`. */
	name: string;
	displayName: string;
	/** The package that ships it. */
	package: string;
	/** How n8n's helper applies it: OAuth2 or OAuth1 (the type extends oAuth2Api / oAuth1Api), or its `authenticate`. */
	kind: 'oAuth2' | 'oAuth1' | 'authenticate';
	/** Fields whose values a request may carry (password, expirable and authenticate's fields): redacted from failures. */
	secretFields: string[];
	/** The type fetches a token before requests (preAuthentication): n8n refreshes it on a 401. */
	preAuthentication?: true;
	/** Its `authenticate` adds fields to the request body: the body goes to n8n's helper as an object (JSON or form bodies only). */
	writesBody?: true;
	/** The options HTTP Request passes to n8n's OAuth2 helper for this type (token type, refresh quirks). */
	oauth2?: IOAuth2Options;
}
