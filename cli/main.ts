/**
 * `npx n8n-nodes-resilient-http migrate <workflow.json | folder> [--force] [--dry-run]`: the
 * command line around migrate-files.ts. Prints what it did to each node; exit 0 when done, 1 on
 * a usage error or a file it would not overwrite.
 */
import { MigrateError, migratePath, type FileResult } from './migrate-files';

const USAGE = `Usage: n8n-nodes-resilient-http migrate <workflow.json | folder> [--force] [--dry-run]

Rewrites exported n8n workflows: each HTTP Request node becomes a Resilient HTTP Request node with
the same parameters and credentials; Retry On Fail is turned off and its tries become Max Attempts.
Writes <name>.resilient.json next to each file; never overwrites one unless --force is given.
  --force     overwrite existing .resilient.json files
  --dry-run   print what would change, write nothing`;

/** The report of one run, as printed. */
export function formatReport(files: FileResult[], dryRun: boolean): string {
	const lines: string[] = [];
	for (const file of files) {
		if (file.skipped) {
			lines.push(`${file.source}: skipped, ${file.skipped}`);
			continue;
		}
		lines.push(file.output ? `${file.source} -> ${file.output}${dryRun ? ' (dry run: not written)' : ''}` : `${file.source}: nothing to migrate, no file written`);
		for (const { name, result } of file.workflows) {
			lines.push(`  workflow "${name}"`);
			if (result.nodes.length === 0) lines.push('    no HTTP Request node');
			for (const node of result.nodes) {
				lines.push(`    "${node.node}": ${node.action === 'migrated' ? 'migrated' : 'kept as it is'}`);
				for (const change of node.changes) lines.push(`      - ${change}`);
				for (const note of node.notes) lines.push(`      ! ${note}`);
			}
			for (const note of result.notes) lines.push(`    ! ${note}`);
		}
	}
	return lines.join('\n');
}

export function main(argv: string[], out: (text: string) => void = console.log, err: (text: string) => void = console.error): number {
	const [command, ...rest] = argv;
	if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
		out(USAGE);
		return command === undefined ? 1 : 0;
	}
	if (command !== 'migrate') {
		err(`Unknown command "${command}".\n\n${USAGE}`);
		return 1;
	}
	const flags = rest.filter((a) => a.startsWith('--'));
	const paths = rest.filter((a) => !a.startsWith('--'));
	const unknown = flags.filter((f) => f !== '--force' && f !== '--dry-run');
	if (unknown.length > 0 || paths.length !== 1) {
		err(`${unknown.length > 0 ? `Unknown option ${unknown.join(', ')}` : 'Give one workflow file or folder'}.\n\n${USAGE}`);
		return 1;
	}
	const dryRun = flags.includes('--dry-run');
	try {
		out(formatReport(migratePath(paths[0], { force: flags.includes('--force'), dryRun }), dryRun));
		return 0;
	} catch (error) {
		if (error instanceof MigrateError) {
			err(error.message);
			return 1;
		}
		throw error;
	}
}
