/**
 * What the window's slow start costs and spares in this run: each scenario's row at the defaults
 * against its row with Adapt Items in Flight off (every item in flight at once, as HTTP Request
 * sends them). Read from the figures, for the misses it explains (the rate limit's 429s, the
 * Retry-After time, the healthy first execution); empty when the run has neither pair.
 */
import type { BenchResults } from './goals';
import { phaseFigures } from './healthy-figures';
import { isSkipped } from './real-n8n-results';

const sec = (value: number) => `${(value / 1000).toFixed(1)} s`;
const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '-');
const pct = (part: number, whole: number) => (whole > 0 ? `${Math.round((1000 * part) / whole) / 10}%` : '-');

export function slowStartNote(results: BenchResults): string {
	const pairs: string[] = [];
	const rate = (slug: string) => results.rate.find((r) => r.row.slug === slug);
	const [rateDefaults, rateOff] = [rate('resilient'), rate('resilient-fixed')];
	if (rateDefaults && rateOff) {
		pairs.push(`rate limit (${rateDefaults.items} items, ${rateDefaults.rps}/s): ${rateDefaults.status429} 429s (${pct(rateDefaults.status429, rateDefaults.requests)}) in ${sec(rateDefaults.durationMs)} at the defaults, ${rateOff.status429} (${pct(rateOff.status429, rateOff.requests)}) in ${sec(rateOff.durationMs)} off`);
	}
	const retryAfter = (slug: string) => results.retryAfter.find((r) => r.slug === slug);
	const [raDefaults, raOff] = [retryAfter('resilient'), retryAfter('resilient-all')];
	if (raDefaults && raOff) pairs.push(`Retry-After (${raDefaults.items} items): ${sec(raDefaults.durationMs)} at the defaults, ${sec(raOff.durationMs)} off`);
	const reading = results.realN8n;
	const healthy = reading.measured ? reading.results.healthy : undefined;
	if (healthy !== undefined && !isSkipped(healthy)) {
		for (const size of healthy.sizes) {
			if (!size.samples.fixed) continue;
			const ratio = (phase: 'first' | 'later', side: 'resilient' | 'fixed') => x(phaseFigures(size, phase, side).timeRatio);
			pairs.push(
				`real n8n, healthy API, ${size.items} items: ${ratio('first', 'resilient')} HTTP Request's time in a first execution at the defaults, ${ratio('first', 'fixed')} off (later executions ${ratio('later', 'resilient')} and ${ratio('later', 'fixed')})`,
			);
		}
	}
	if (pairs.length === 0) return '';
	return (
		`The window's slow start, at the defaults against Adapt Items in Flight off (every item in flight at once, as HTTP Request sends them), in this run: ${pairs.join('; ')}. ` +
		'An API new to the controller gets 10 requests in flight, doubling per round of answers: that spares a rate-limited API the first burst of 429s, ' +
		'and costs a healthy API the first rounds, and items that each get their own 429 a second pause (the first window\'s 429s pause everyone before a retry can show that they are each request\'s own; the retries go first at its end). The defaults keep it (docs/decisions.md, "Items in flight adapt"); ' +
		'Adapt Items in Flight off sends as HTTP Request does.'
	);
}
