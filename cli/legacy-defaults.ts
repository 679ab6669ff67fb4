/**
 * The parameters of HTTP Request v1 and v2 (n8n-nodes-base 2.41.1) with their defaults: the values
 * the old node reads where its saved JSON holds nothing (n8n saves only values that differ from
 * the default). cli/legacy-http-request.ts reads a node through them and writes each value out for
 * the new node, whose defaults differ. test/unit/migrate-defaults.test.ts derives both lists from
 * HttpRequestV1 and HttpRequestV2 and fails when they part.
 */
export const LEGACY_DEFAULTS = {
	authentication: 'none',
	/** v2 only */
	nodeCredentialType: '',
	/** v2 only */
	genericAuthType: '',
	requestMethod: 'GET',
	url: '',
	allowUnauthorizedCerts: false,
	responseFormat: 'json',
	dataPropertyName: 'data',
	jsonParameters: false,
	options: {},
	sendBinaryData: false,
	binaryPropertyName: 'data',
	bodyParametersJson: '',
	bodyParametersUi: {},
	headerParametersJson: '',
	headerParametersUi: {},
	queryParametersJson: '',
	queryParametersUi: {},
} as const;

/**
 * The Options collection's entries and the value each gets when added in the panel. An option not
 * added is not this value: execute then does nothing for most of them (no batching, the old
 * node's 1-hour timeout, Follow GET/HEAD Redirect on).
 */
export const LEGACY_OPTION_DEFAULTS = {
	batchInterval: 1000,
	batchSize: 50,
	bodyContentType: 'json',
	fullResponse: false,
	followAllRedirects: false,
	followRedirect: true,
	ignoreResponseCode: false,
	bodyContentCustomMimeType: '',
	proxy: '',
	splitIntoItems: false,
	timeout: 10000,
	useQueryString: false,
} as const;
