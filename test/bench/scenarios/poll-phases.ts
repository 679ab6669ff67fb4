/**
 * The phases of a polled job (docs/polling.md, "Judged over where the job ends"): how late any
 * poller sees a job end depends on where the end falls between its looks, so a duration is judged
 * over several job lengths spread over one of the loop's intervals. The benchmark (scenario 9) and
 * the unit simulation (test/unit/poll-defaults.test.ts) spread them by these same rules.
 */

/**
 * The phases of a duration: one of the loop's intervals. A job shorter than that interval is seen at
 * the loop's first look whatever its length, so its phase against the loop decides nothing: its jobs
 * keep its length (each with its own jitter), and the row stays a job of that duration.
 */
function phaseSpreadSeconds(jobSeconds: number, loopWaitSeconds: number): number {
	return jobSeconds > loopWaitSeconds ? loopWaitSeconds : 0;
}

/** The lengths (s) of a duration's jobs: the duration, then evenly later within its spread. */
export function jobLengths(jobSeconds: number, loopWaitSeconds: number, phases: number): number[] {
	const step = phaseSpreadSeconds(jobSeconds, loopWaitSeconds) / phases;
	return Array.from({ length: phases }, (_, k) => Math.round((jobSeconds + k * step) * 1000) / 1000);
}
