/**
 * The outage storm's plot, as hand-written SVG (no plotting dependency): one panel per row,
 * requests per 100 ms over time on the same axes (retries over all requests), the outage shaded.
 */
import { binCounts } from './stats';
import type { StormResult } from './scenarios/outage-storm';

const BIN_MS = 100;
const WIDTH = 980;
const LEFT = 370;
const RIGHT = 20;
const PANEL = 70;
const GAP = 14;
const TOP = 40;
const AXIS = 56;

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A step line through the bin counts: flat over each bin, so a burst shows as wide as it was. */
function stepPath(counts: number[], x: (ms: number) => number, y: (count: number) => number): string {
	const points: string[] = [`${x(0).toFixed(1)},${y(0).toFixed(1)}`];
	counts.forEach((count, bin) => {
		points.push(`${x(bin * BIN_MS).toFixed(1)},${y(count).toFixed(1)}`, `${x((bin + 1) * BIN_MS).toFixed(1)},${y(count).toFixed(1)}`);
	});
	points.push(`${x(counts.length * BIN_MS).toFixed(1)},${y(0).toFixed(1)}`);
	return `M${points.join('L')}`;
}

export function stormPlotSvg(results: readonly StormResult[]): string {
	const lastMs = Math.max(1000, ...results.flatMap((r) => r.requestTimes));
	const bins = Math.ceil((lastMs + 1) / BIN_MS);
	const spanMs = bins * BIN_MS;
	const series = results.map((r) => binCounts(r.requestTimes, BIN_MS, bins));
	const retries = results.map((r) => binCounts(r.retryTimes, BIN_MS, bins));
	const yMax = Math.max(1, ...series.flat());
	const plotWidth = WIDTH - LEFT - RIGHT;
	const height = TOP + results.length * (PANEL + GAP) + AXIS;
	const x = (ms: number) => LEFT + (ms / spanMs) * plotWidth;
	const tickStepMs = spanMs > 20_000 ? 5000 : spanMs > 8000 ? 2000 : 1000;

	const parts: string[] = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
		`<rect width="100%" height="100%" fill="#fff"/>`,
		`<text x="${LEFT}" y="18" font-size="14" font-weight="bold">Outage storm: requests per 100 ms, ${results[0]?.fleet ?? 0} executions, upstream down for the shaded time</text>`,
	];
	results.forEach((result, k) => {
		const top = TOP + k * (PANEL + GAP);
		const y = (count: number) => top + PANEL - (count / yMax) * PANEL;
		parts.push(
			`<rect x="${LEFT}" y="${top}" width="${(x(result.recoveredAtMs) - LEFT).toFixed(1)}" height="${PANEL}" fill="#fde2e2"/>`,
			`<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${PANEL}" fill="none" stroke="#ccc"/>`,
			`<path d="${stepPath(series[k], x, y)}" fill="#e3e3e3" stroke="#999" stroke-width="0.5"/>`,
			`<path d="${stepPath(retries[k], x, y)}" fill="#cfe0fb" stroke="#1f5fbf" stroke-width="1"/>`,
			`<text x="${LEFT - 8}" y="${top + PANEL / 2 - 12}" text-anchor="end">${escape(result.row.name)}</text>`,
			`<text x="${LEFT - 8}" y="${top + PANEL / 2 + 4}" text-anchor="end" fill="#555">retry peak ${result.retryPeak}, after recovery ${result.peakAfterRecovery} /100 ms</text>`,
			`<text x="${LEFT - 8}" y="${top + PANEL / 2 + 19}" text-anchor="end" fill="#555">${result.requests} requests, ${Math.round((100 * result.succeeded) / result.fleet)}% succeeded</text>`,
		);
	});
	const axisY = TOP + results.length * (PANEL + GAP);
	for (let ms = 0; ms <= spanMs; ms += tickStepMs) {
		parts.push(`<line x1="${x(ms).toFixed(1)}" y1="${axisY - GAP}" x2="${x(ms).toFixed(1)}" y2="${axisY - GAP + 5}" stroke="#333"/>`, `<text x="${x(ms).toFixed(1)}" y="${axisY + 6}" text-anchor="middle">${ms / 1000} s</text>`);
	}
	parts.push(
		`<text x="${LEFT}" y="${axisY + 26}" fill="#555">Blue: retries; grey: all requests (first attempts included). Each panel's height is ${yMax} requests per 100 ms.</text>`,
		`<text x="${LEFT}" y="${axisY + 42}" fill="#555">Time from the fleet's start; peaks are sliding 100 ms windows.</text>`,
		'</svg>',
	);
	return `${parts.join('\n')}\n`;
}
