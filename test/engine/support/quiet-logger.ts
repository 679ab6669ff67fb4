/**
 * A logger for in-process engine runs.
 *
 * n8n-core logs every node start/finish at debug level and reports node errors through
 * `ErrorReporter` -> `Logger.error`, which would flood Jest output with expected failures.
 * Silent by default; set ENGINE_TEST_LOG=debug|info|warn|error to see the engine's logs.
 */
import type { Logger } from '@n8n/backend-common';
import type { LogMetadata } from 'n8n-workflow';

type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

function enabledLevels(): ReadonlySet<LogLevel> {
	const wanted = process.env.ENGINE_TEST_LOG as LogLevel | undefined;
	const index = wanted ? LEVELS.indexOf(wanted) : -1;
	return new Set(index < 0 ? [] : LEVELS.slice(0, index + 1));
}

/** Structural stand-in for `@n8n/backend-common`'s Logger (a winston wrapper with private state). */
export function createQuietLogger(): Logger {
	const enabled = enabledLevels();
	const write = (level: LogLevel) => (message: string, metadata?: LogMetadata) => {
		if (enabled.has(level)) console[level](`[n8n ${level}] ${message}`, metadata ?? '');
	};
	const logger = {
		error: write('error'),
		warn: write('warn'),
		info: write('info'),
		debug: write('debug'),
		scoped: () => logger,
	};
	// The real class has private members, so a structural object cannot satisfy its type; the
	// engine only ever calls the methods above.
	return logger as unknown as Logger;
}
