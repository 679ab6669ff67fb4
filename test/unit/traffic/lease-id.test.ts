import { newLeaseId } from '../../../nodes/shared/core/traffic/lease-id';

describe('lease ids', () => {
	it('are 16 base64url characters (96 bits), all different across several pages of random bytes', () => {
		const ids = Array.from({ length: 2_000 }, () => newLeaseId());
		for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
		expect(new Set(ids).size).toBe(ids.length);
	});
});
