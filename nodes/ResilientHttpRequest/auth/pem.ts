/**
 * Certificates and keys as users paste them into n8n's SSL Certificates credential: often on one
 * line, the line breaks turned into spaces or into the two characters "\n". Node's TLS needs PEM
 * with real line breaks; like n8n's HTTP Request (setAgentOptions), the node rebuilds them. A value
 * that already has line breaks, or holds no PEM block, is left as it is.
 */
const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
const HEADER_LINE = /^(Proc-Type|DEK-Info):(.*)$/;
const LINE_LENGTH = 64;

function rebuildBlock(label: string, inner: string): string {
	const tokens = inner.replace(/\\n/g, '\n').trim().split(/\s+/).filter(Boolean);
	// an encrypted key in the old OpenSSL format starts with headers ("Proc-Type: 4,ENCRYPTED")
	const headers: string[] = [];
	while (tokens.length > 0 && HEADER_LINE.test(tokens[0])) {
		const [, name, rest] = HEADER_LINE.exec(tokens.shift() as string) as RegExpExecArray;
		const value = rest !== '' ? rest : (tokens.shift() ?? '');
		headers.push(`${name}: ${value}`);
	}
	const base64 = tokens.join('');
	const lines = base64.match(new RegExp(`.{1,${LINE_LENGTH}}`, 'g')) ?? [];
	return [`-----BEGIN ${label}-----`, ...headers, ...(headers.length > 0 ? [''] : []), ...lines, `-----END ${label}-----`].join('\n');
}

export function normalizePem(value: string): string {
	if (value.includes('\n') || !value.includes('-----BEGIN ')) return value;
	const blocks = [...value.matchAll(BLOCK)];
	if (blocks.length === 0) return value;
	// a chain (several certificates) keeps every block, one after the other
	return blocks.map(([, label, inner]) => rebuildBlock(label, inner)).join('\n');
}
