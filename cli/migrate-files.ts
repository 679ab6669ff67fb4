/**
 * The files of `migrate`: a workflow file (one workflow, or an array of them as n8n's
 * `export:workflow --all` writes), or a folder of such files (`export:workflow --separate`).
 * Each result is written next to its source as `<name>.resilient.json`; an existing result is
 * never overwritten unless asked to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isWorkflow, migrateWorkflow, type MigrationResult } from './migrate-workflow';

const OUTPUT_SUFFIX = '.resilient.json';

export interface FileResult {
	source: string;
	/** Where the result was (or, in a dry run, would be) written; undefined when nothing was migrated. */
	output?: string;
	/** One per workflow in the file. */
	workflows: Array<{ name: string; result: MigrationResult }>;
	/** Why the file was skipped (not JSON, not a workflow). */
	skipped?: string;
}

export class MigrateError extends Error {}

export function outputPathOf(source: string): string {
	return path.join(path.dirname(source), `${path.basename(source, path.extname(source))}${OUTPUT_SUFFIX}`);
}

/** The workflow files a path names: the file itself, or the .json files of a folder (not the results of an earlier run). */
function workflowFiles(target: string): string[] {
	if (!fs.existsSync(target)) throw new MigrateError(`${target}: no such file or folder`);
	if (fs.statSync(target).isDirectory()) {
		return fs
			.readdirSync(target)
			.filter((name) => name.endsWith('.json') && !name.endsWith(OUTPUT_SUFFIX))
			.sort()
			.map((name) => path.join(target, name));
	}
	return [target];
}

function migrateFile(source: string): { file: FileResult; text?: string } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(fs.readFileSync(source, 'utf8'));
	} catch (error) {
		return { file: { source, workflows: [], skipped: `not valid JSON (${(error as Error).message})` } };
	}
	const many = Array.isArray(parsed);
	const candidates = many ? (parsed as unknown[]) : [parsed];
	if (candidates.length === 0 || !candidates.every(isWorkflow)) return { file: { source, workflows: [], skipped: 'not an n8n workflow (no "nodes" and "connections")' } };
	const workflows = candidates.map((workflow) => ({ name: String((workflow as { name?: unknown }).name ?? path.basename(source)), result: migrateWorkflow(workflow) }));
	if (!workflows.some((w) => w.result.nodes.some((n) => n.action === 'migrated'))) return { file: { source, workflows } };
	const out = many ? workflows.map((w) => w.result.workflow) : workflows[0].result.workflow;
	return { file: { source, output: outputPathOf(source), workflows }, text: `${JSON.stringify(out, null, 2)}\n` };
}

/**
 * Migrates every workflow file `target` names. Checks that no result would overwrite a file before
 * writing any (unless `force`); `dryRun` writes nothing.
 */
export function migratePath(target: string, { force = false, dryRun = false }: { force?: boolean; dryRun?: boolean } = {}): FileResult[] {
	const done = workflowFiles(target).map(migrateFile);
	const existing = done.map((d) => d.file.output).filter((output): output is string => output !== undefined && fs.existsSync(output));
	if (existing.length > 0 && !force && !dryRun) {
		throw new MigrateError(`not overwriting ${existing.join(', ')}: move ${existing.length === 1 ? 'it' : 'them'} away, or pass --force`);
	}
	if (!dryRun) for (const { file, text } of done) if (file.output && text !== undefined) fs.writeFileSync(file.output, text);
	return done.map((d) => d.file);
}
