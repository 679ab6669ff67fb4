/** Reading what failed from an item that reached a retry loop (Backoff Delay). */
import { readItemFailure } from '../../nodes/shared/core/item-failure';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('error codes on the item', () => {
	it.each(['UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE'])('%s is read as it is, so that it is classified like in the HTTP node', (code) => {
		expect(readItemFailure({ error: { code, message: 'other side closed' } }, NOW)).toMatchObject({ failed: true, code });
	});

	it("axios' status error codes say nothing of the failure and are dropped", () => {
		expect(readItemFailure({ error: { code: 'ERR_BAD_RESPONSE', status: 503 } }, NOW).code).toBeUndefined();
		expect(readItemFailure({ error: { code: 'ERR_BAD_REQUEST', status: 404 } }, NOW).code).toBeUndefined();
	});
});
