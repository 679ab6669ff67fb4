/**
 * One-time dependency-injection setup so n8n-core can execute workflows in a Jest process.
 *
 * n8n-core resolves its collaborators lazily from the `@n8n/di` Container (e.g.
 * `Container.get(OutboundHttp)` inside `this.helpers.httpRequest`, `Container.get(InstanceSettings)`
 * in every node execution context, `Container.get(BinaryDataService)` in the binary helpers).
 * Most of them construct fine on demand; we only pin down the ones that would touch the
 * developer's machine (~/.n8n), be noisy, or depend on environment variables.
 */
import { Logger } from '@n8n/backend-common';
import { InstanceSettingsConfig, SsrfProtectionConfig } from '@n8n/config';
import { Container } from '@n8n/di';
import { BinaryDataConfig, InstanceSettings } from 'n8n-core';
import { LoggerProxy } from 'n8n-workflow';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createQuietLogger } from './quiet-logger';

// Jest gives every test file its own module registry, hence its own Container; this flag lives
// in the same registry, so "once per test file" is exactly "once per Container".
let configured = false;

const ENCRYPTION_KEY = 'engine-test-encryption-key';

export function ensureEngineContainer(): void {
	if (configured) return;
	const logger = createQuietLogger();
	LoggerProxy.init(logger);
	Container.set(Logger, logger);
	configureInstanceSettings(logger);
	configureBinaryData();
	configureOutboundHttp();
	configured = true;
}

/**
 * The real InstanceSettings reads or creates `<n8nFolder>/config` (holding the encryption key) in
 * its constructor. Point it at a fixed folder under the OS temp dir instead of ~/.n8n or
 * $N8N_USER_FOLDER, holding a settings file we write ourselves.
 */
function configureInstanceSettings(logger: Logger): void {
	const folder = path.join(tmpdir(), 'n8n-engine-test');
	writeSettingsFile(folder);
	const config = Container.get(InstanceSettingsConfig);
	// n8nFolder/userHome are readonly in the type because n8n computes them once from the env;
	// overriding them before InstanceSettings is built is exactly what we want.
	Object.assign(config, { n8nFolder: folder, userHome: folder });
	config.encryptionKey = ENCRYPTION_KEY;
	config.enforceSettingsFilePermissions = false;
	Container.set(InstanceSettings, new InstanceSettings(config, logger));
}

/**
 * Written to a temp name and renamed, so parallel Jest workers never see a half-written file (which
 * InstanceSettings would fail to parse). Content is constant, so the folder is reused forever and
 * never needs cleaning up.
 */
function writeSettingsFile(folder: string): void {
	const file = path.join(folder, 'config');
	if (existsSync(file)) return;
	mkdirSync(folder, { recursive: true });
	const temporary = `${file}.${process.pid}.tmp`;
	writeFileSync(temporary, JSON.stringify({ encryptionKey: ENCRYPTION_KEY }));
	renameSync(temporary, file);
}

/**
 * Binary data stays inline (base64 in `IBinaryData.data`, no `id`): BinaryDataService is never
 * `init()`ed, so it has no storage manager and falls back to inline storage, and mode 'default'
 * stops the engine from converting output binaries to stored references.
 */
function configureBinaryData(): void {
	Container.get(BinaryDataConfig).mode = 'default';
}

/**
 * `this.helpers.httpRequest*` go through `Container.get(OutboundHttp)`, which applies SSRF
 * protection only when `N8N_SSRF_PROTECTION_ENABLED` is set. Force it off so tests can talk to
 * servers on 127.0.0.1 whatever the environment says. (Nock intercepts below this layer.)
 */
function configureOutboundHttp(): void {
	Container.get(SsrfProtectionConfig).enabled = false;
}
