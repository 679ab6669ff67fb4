/**
 * Metric families written in Prometheus' text exposition format, version 0.0.4 (what n8n's own
 * /metrics serves, content type `text/plain; version=0.0.4`): per family one `# HELP` and one
 * `# TYPE` line, then its samples, each family once and whole. Label values are escaped (`\`, `"`,
 * newline), HELP texts too (`\`, newline); a name that the format does not allow is a programming
 * error and throws. Pure: knows nothing of the controllers (metric-families.ts makes the families).
 */

export interface Sample {
	/** Label name -> value, written in this order. */
	labels: Readonly<Record<string, string>>;
	value: number;
}

export interface MetricFamily {
	name: string;
	type: 'counter' | 'gauge';
	help: string;
	samples: readonly Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value inside its double quotes. */
export const escapeLabelValue = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** A HELP text (the format escapes no quote there). */
const escapeHelp = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** A sample's value: Go's float formatting for the specials, JavaScript's shortest form for the rest. */
function formatValue(value: number): string {
	if (Number.isNaN(value)) return 'NaN';
	if (value === Infinity) return '+Inf';
	if (value === -Infinity) return '-Inf';
	return String(value);
}

function labelsText(labels: Readonly<Record<string, string>>): string {
	const names = Object.keys(labels);
	if (names.length === 0) return '';
	for (const name of names) if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`Not a Prometheus label name: ${JSON.stringify(name)}`);
	return `{${names.map((name) => `${name}="${escapeLabelValue(labels[name])}"`).join(',')}}`;
}

/** The families as one exposition: each name once, in the order given; ends with a newline. */
export function formatPrometheusText(families: readonly MetricFamily[]): string {
	const seen = new Set<string>();
	const lines: string[] = [];
	for (const family of families) {
		if (!METRIC_NAME.test(family.name)) throw new Error(`Not a Prometheus metric name: ${JSON.stringify(family.name)}`);
		// one family per metric: a second block of the same name is an error for every parser
		if (seen.has(family.name)) throw new Error(`The metric family ${family.name} is given twice`);
		seen.add(family.name);
		lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
		for (const sample of family.samples) lines.push(`${family.name}${labelsText(sample.labels)} ${formatValue(sample.value)}`);
	}
	return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The content type of the text, for a Respond to Webhook node or a server. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
