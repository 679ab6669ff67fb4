import { randomBytes } from 'node:crypto';

export type MultipartPart = { name: string; value: string } | { name: string; data: Buffer; fileName: string; mimeType: string };

/** As the form-data package (HTTP Request's encoder) escapes a name or file name: quotes and line breaks percent-encoded. */
function escapeParam(text: string): string {
	return text.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/** form-data sends a file name's last path segment only, and no filename attribute for an empty one. */
function fileNameParam(fileName: string): string {
	const base = fileName.split('/').filter((segment) => segment !== '').pop() ?? '';
	return base === '' ? '' : `; filename="${escapeParam(base)}"`;
}

/** form-data's boundary: 26 dashes and 24 hex digits, so the body has the length HTTP Request's has. */
function formDataBoundary(): string {
	return `${'-'.repeat(26)}${randomBytes(12).toString('hex')}`;
}

/**
 * Encodes multipart/form-data into one Buffer, byte for byte as HTTP Request's form-data encoder
 * lays it out. A buffer, unlike a form-data stream, can be sent again on every retry attempt
 * unchanged.
 */
export function encodeMultipart(parts: MultipartPart[], boundary = formDataBoundary()): { body: Buffer; contentType: string } {
	const chunks: Buffer[] = [];
	for (const part of parts) {
		let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeParam(part.name)}"`;
		if ('data' in part) {
			head += `${fileNameParam(part.fileName)}\r\nContent-Type: ${part.mimeType}\r\n\r\n`;
			chunks.push(Buffer.from(head, 'utf8'), part.data, Buffer.from('\r\n'));
		} else {
			head += '\r\n\r\n';
			chunks.push(Buffer.from(head, 'utf8'), Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
		}
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`));
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
