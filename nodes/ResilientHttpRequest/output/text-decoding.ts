/**
 * A body's text the way HTTP Request reads it when Response Format is Autodetect: in the charset
 * the Content-Type names, or else as UTF-8, and, when UTF-8 gives replacement characters or runs
 * of Latin-1 letters, in the charset n8n detects. The steps are those of HTTP Request's
 * binaryToStringWithEncodingDetection (n8n-nodes-base, not a package a community node can load),
 * through the same n8n helpers (binaryToString, detectBinaryEncoding).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

const UTF8 = 'utf-8';
const REPLACEMENT_CHAR = '\uFFFD';
const HIGH_ASCII_RUN = /[\x80-\xFF]{3,}/;
const CHINESE_ENCODINGS = ['gb18030', 'gbk', 'gb2312'];

/** `text/html; charset="ISO-8859-1"` -> `iso-8859-1`. */
export function charsetOf(contentType: string): string | undefined {
	const match = /charset=([^;,\s]+)/i.exec(contentType);
	return match ? match[1].toLowerCase().replace(/['"]/g, '') : undefined;
}

/** n8n's helper takes any charset iconv knows, typed as Node's few BufferEncodings. */
export async function decodeAs(ctx: IExecuteFunctions, body: Buffer, charset?: string): Promise<string> {
	return await ctx.helpers.binaryToString(body, charset as BufferEncoding | undefined);
}

/** A UTF-8 reading that looks wrong, read again in the detected charset or a Chinese one that fits. */
async function redecoded(ctx: IExecuteFunctions, body: Buffer): Promise<string | undefined> {
	const detected = ctx.helpers.detectBinaryEncoding(body).toLowerCase();
	if (detected && detected !== UTF8) return await decodeAs(ctx, body, detected);
	for (const charset of CHINESE_ENCODINGS) {
		try {
			const text = await decodeAs(ctx, body, charset);
			if (!text.includes(REPLACEMENT_CHAR) && text.length > 0) return text;
		} catch {
			// a charset this n8n's iconv lacks: try the next, as HTTP Request does
		}
	}
	return undefined;
}

export async function decodeText(ctx: IExecuteFunctions, body: Buffer, contentType: string): Promise<string> {
	const charset = charsetOf(contentType);
	if (charset && charset !== UTF8) return await decodeAs(ctx, body, charset);
	const text = await decodeAs(ctx, body);
	if (!text.includes(REPLACEMENT_CHAR) && !HIGH_ASCII_RUN.test(text)) return text;
	return (await redecoded(ctx, body)) ?? text;
}
