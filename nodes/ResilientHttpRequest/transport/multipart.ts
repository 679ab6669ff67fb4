import { randomBytes } from 'node:crypto';

export type MultipartPart = { name: string; value: string } | { name: string; data: Buffer; fileName: string; mimeType: string };

function quote(text: string): string {
	// RFC 7578: names are quoted strings; escape what would break the header line
	return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/[\r\n]/g, ' ');
}

/**
 * Encodes multipart/form-data into one Buffer. A buffer, unlike a form-data stream, can be
 * sent again on every retry attempt unchanged.
 */
export function encodeMultipart(parts: MultipartPart[], boundary = `----n8nResilientHttp${randomBytes(12).toString('hex')}`): { body: Buffer; contentType: string } {
	const chunks: Buffer[] = [];
	for (const part of parts) {
		let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quote(part.name)}"`;
		if ('data' in part) {
			head += `; filename="${quote(part.fileName)}"\r\nContent-Type: ${part.mimeType}\r\n\r\n`;
			chunks.push(Buffer.from(head, 'utf8'), part.data, Buffer.from('\r\n'));
		} else {
			head += '\r\n\r\n';
			chunks.push(Buffer.from(head, 'utf8'), Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
		}
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`));
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
