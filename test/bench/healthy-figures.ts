/**
 * The healthy rows' figures (real n8n, test/bench/real-n8n-healthy.mjs): per size and phase (an
 * API's first execution, a later one), the medians of each side and the ratios Resilient HTTP
 * Request (at its defaults, or with Adapt Items in Flight off) / HTTP Request. A ratio is the
 * median of the rounds' ratios: the sides of a round ran back to back, so a round's ratio is
 * measured side by side under the same load.
 */
import type { HealthySample, HealthySize } from './real-n8n-results';
import { median } from './stats';

export type HealthyPhase = 'first' | 'later';
/** Resilient HTTP Request at its defaults, or with Adapt Items in Flight off. */
export type ResilientSide = 'resilient' | 'fixed';

export interface PhaseFigures {
	/** Medians of n8n's executionTime of the request node. */
	coreNodeMs: number;
	resilientNodeMs: number;
	/** Medians of the n8n process's CPU over the execution, less the baseline's median (the execution without a request node). */
	coreCpuMs: number;
	resilientCpuMs: number;
	/** Medians of the rounds' ratios. */
	timeRatio: number;
	cpuRatio: number;
	rounds: number;
}

export function phaseFigures(size: HealthySize, phase: HealthyPhase, side: ResilientSide = 'resilient'): PhaseFigures {
	const core = size.samples.core[phase];
	const resilient = size.samples[side]?.[phase] ?? [];
	const baseline = median(size.samples.baseline.map((s) => s.cpuMs));
	const nodeCpu = (s: HealthySample) => Math.max(1, s.cpuMs - baseline);
	const rounds = Math.min(core.length, resilient.length);
	const pairs = Array.from({ length: rounds }, (_, k) => [core[k], resilient[k]] as const);
	return {
		coreNodeMs: median(core.map((s) => s.nodeMs ?? NaN)),
		resilientNodeMs: median(resilient.map((s) => s.nodeMs ?? NaN)),
		coreCpuMs: median(core.map(nodeCpu)),
		resilientCpuMs: median(resilient.map(nodeCpu)),
		timeRatio: median(pairs.map(([c, r]) => (r.nodeMs ?? NaN) / (c.nodeMs ?? NaN))),
		cpuRatio: median(pairs.map(([c, r]) => nodeCpu(r) / nodeCpu(c))),
		rounds,
	};
}
