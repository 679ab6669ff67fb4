// n8n's community-node lint rules. Every rule switched off here is listed in the README with its reason.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tseslint from 'typescript-eslint';

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'test/**', '.n8n-local/**', '.e2e-tmp/**'] },
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tseslint.parser },
	},
	{
		// the package.json rules read the manifest as a JavaScript object expression
		files: ['package.json'],
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
	// Without n8n Cloud support: the nodes need cancellable timers and (in queue mode) a Redis client,
	// which n8n Cloud does not allow. Our users run self-hosted n8n.
	n8nCommunityNodesPlugin.configs.recommendedWithoutN8nCloudSupport,
	{
		rules: {
			// The node offers n8n's own generic credentials (Basic, Bearer, Header, Query) so that
			// switching from HTTP Request keeps the user's credential; verified to work in real n8n.
			'@n8n/community-nodes/no-credential-reuse': 'off',
			// No public contact address exists yet; the author field names the maintainers.
			'@n8n/community-nodes/valid-author': 'off',
		},
	},
	{
		// Backoff Delay is the body of a retry loop (Retry / Give up outputs): as an AI tool it would
		// only sleep; n8n offers a node as a tool when it sets usableAsTool, so it sets none.
		files: ['nodes/BackoffDelay/BackoffDelay.node.ts'],
		rules: { '@n8n/community-nodes/node-usable-as-tool': 'off' },
	},
	{
		// The HTTP node declares n8n's own credential types (the generic kinds, the predefined types
		// HTTP Request offers, SSL Certificates); the rule only knows this package's.
		files: ['nodes/ResilientHttpRequest/ResilientHttpRequest.node.ts'],
		rules: { '@n8n/community-nodes/valid-credential-references': 'off' },
	},
	{
		// ioredis, the one runtime dependency: the Redis state store (queue mode) needs a Redis client,
		// and a well-kept one beats bundling or writing our own. Same version as n8n 2.41.1 ships for
		// its own queue (5.3.2), and `require`d only when a Redis store is used.
		files: ['package.json'],
		rules: { '@n8n/community-nodes/no-runtime-dependencies': 'off' },
	},
];
