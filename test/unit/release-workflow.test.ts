/**
 * The release workflow (.github/workflows/release.yml, docs/releasing.md) keeps its promises: a tag
 * starts it, nothing is published before every test of `.ci/run` passed on that commit, the publish
 * carries npm provenance, and only the publishing job can ask for the OIDC token provenance needs.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../support/doc-section';

interface Step {
	name?: string;
	run?: string;
	uses?: string;
}
interface Job {
	needs?: string | string[];
	permissions?: Record<string, string>;
	steps: Step[];
}
interface Workflow {
	on: { push?: { tags?: string[] } };
	permissions: Record<string, string>;
	jobs: Record<string, Job>;
}

const workflow = parse(readFileSync(path.join(REPO_ROOT, '.github/workflows/release.yml'), 'utf8')) as Workflow;
const runs = (job: Job) => job.steps.map((step) => step.run ?? '');
const publishJob = () => {
	const names = Object.keys(workflow.jobs).filter((name) => runs(workflow.jobs[name]).some((run) => /\bnpm publish\b/.test(run)));
	expect(names).toHaveLength(1);
	return { name: names[0], job: workflow.jobs[names[0]] };
};

test('a version tag starts it, and nothing else', () => {
	expect(Object.keys(workflow.on)).toEqual(['push']);
	expect(workflow.on.push?.tags).toEqual(['v*.*.*']);
});

test('the publish runs only after a job that runs .ci/run on the same commit', () => {
	const { job } = publishJob();
	const needs = [job.needs ?? []].flat();
	expect(needs.length).toBeGreaterThan(0);
	expect(needs.some((name) => runs(workflow.jobs[name]).some((run) => run.trim() === 'bash .ci/run'))).toBe(true);
});

test('npm publish carries provenance, after the tag check, the build and the tarball check', () => {
	const steps = runs(publishJob().job);
	const at = (pattern: RegExp) => steps.findIndex((run) => pattern.test(run));
	const publish = at(/\bnpm publish\b/);
	expect(steps[publish]).toMatch(/--provenance\b/);
	for (const before of [/release-check\.js/, /npm run build/, /package-contents\.test\.ts/]) {
		expect(at(before)).toBeGreaterThanOrEqual(0);
		expect(at(before)).toBeLessThan(publish);
	}
});

test('only the publishing job may ask for an OIDC token; the rest reads the repository', () => {
	expect(workflow.permissions).toEqual({ contents: 'read' });
	const { name } = publishJob();
	for (const [jobName, job] of Object.entries(workflow.jobs)) {
		expect(job.permissions?.['id-token']).toBe(jobName === name ? 'write' : undefined);
	}
});

test('scripts/release-check.js passes the tag of package.json version and refuses any other', () => {
	const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
	const check = (tag: string) => spawnSync(process.execPath, ['scripts/release-check.js', tag], { cwd: REPO_ROOT, encoding: 'utf8' });
	expect(check(`v${version}`).status).toBe(0);
	const wrong = check('v999.0.0');
	expect(wrong.status).toBe(1);
	expect(wrong.stderr).toContain(`does not match package.json's version ${version}`);
	expect(check(version).status).toBe(1); // the v is part of the tag
});
