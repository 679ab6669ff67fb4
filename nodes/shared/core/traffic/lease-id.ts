/**
 * Names of requests' leases in an API's state (a pause's probe, a quota's asker, the pace's slots;
 * Redis names the members of its sorted set of leases by number, state/lease-names.ts): 96 random
 * bits in 16 characters, half a UUID's bytes in every state that holds one. Every attempt through the
 * traffic gate takes one, so the random bytes are drawn a page at a time: a draw of 12 bytes alone
 * costs about 5 µs on the event loop, one from the page about as much as randomUUID (which pools
 * its entropy the same way).
 */
import { randomBytes } from 'node:crypto';

const ID_BYTES = 12;
const PAGE_BYTES = ID_BYTES * 512;

let page: Buffer = Buffer.alloc(0);
let used = 0;

export function newLeaseId(): string {
	if (used + ID_BYTES > page.length) {
		page = randomBytes(PAGE_BYTES);
		used = 0;
	}
	used += ID_BYTES;
	return page.toString('base64url', used - ID_BYTES, used);
}
