/**
 * A process's actual sends under the user's Rate Limit (nodes/shared/core/traffic/send-log.ts):
 * a send that leaves late never bunches with the next into N + 1 within the limit's window, and
 * sends on time are never held back.
 */
import { SendLog, SendLogs } from '../../../nodes/shared/core/traffic/send-log';
import { busiest as busiestWindow } from '../../support/busiest';

describe('the send log of a Rate Limit of 20 per second', () => {
	it('sends on time, 50 ms apart, all leave at once: never held back', () => {
		const log = new SendLog();
		for (let k = 0; k < 100; k++) expect(log.claim(k * 50, 20, 1000)).toBe(k * 50);
	});

	it('a late send (60 ms) then the next on time: the send a second after it waits the lateness, the ones between are on time', () => {
		const log = new SendLog();
		const left: number[] = [];
		for (let k = 0; k < 60; k++) {
			const planned = k * 50;
			const woke = k === 10 ? planned + 60 : planned; // the 11th fired 60 ms late, after the 12th's time
			left.push(log.claim(woke, 20, 1000));
		}
		expect(busiestWindow(left, 1000)).toBe(20);
		// only the send a second after the late one moves, by its lateness (and so on, a second after that
		// one: the run's pace is kept, and the last send is on time)
		const moved = left.flatMap((at, k) => (at !== (k === 10 ? k * 50 + 60 : k * 50) ? [k] : []));
		expect(moved).toEqual([30, 50]);
		expect(left[30]).toBe(30 * 50 + 60);
		expect(left[59]).toBe(59 * 50);
		// without the log: 21 in one second
		const woke = Array.from({ length: 60 }, (_, k) => (k === 10 ? k * 50 + 60 : k * 50));
		expect(busiestWindow(woke, 1000)).toBe(21);
	});

	it('an event loop blocked 300 ms wakes 7 sends together: they leave together (no burst beyond the limit), and no second holds more than 20', () => {
		const log = new SendLog();
		const left: number[] = [];
		for (let k = 0; k < 100; k++) {
			const planned = k * 50;
			const woke = planned >= 2000 && planned < 2300 ? 2300 : planned;
			left.push(log.claim(woke, 20, 1000));
		}
		expect(busiestWindow(left, 1000)).toBeLessThanOrEqual(20);
		// the run ends when the pace says, give or take the block
		expect(Math.max(...left)).toBeLessThanOrEqual(99 * 50 + 300);
	});
});

describe('other limits', () => {
	it('100 per minute: never 101 in any minute, even with late wakes every tenth send', () => {
		const log = new SendLog();
		const left = Array.from({ length: 500 }, (_, k) => log.claim(k * 600 + (k % 10 === 0 ? 450 : 0), 100, 60_000));
		expect(busiestWindow(left, 60_000)).toBe(100);
	});

	it('half a request a second: two sends at least 2 s apart', () => {
		const log = new SendLog();
		expect(log.claim(0, 0.5, 1000)).toBe(0);
		expect(log.claim(1500, 0.5, 1000)).toBe(2000);
		expect(log.claim(4500, 0.5, 1000)).toBe(4500);
	});

	it('2.5 a second: two sends in any 800 ms at most, the pace kept', () => {
		const log = new SendLog();
		const left = Array.from({ length: 50 }, (_, k) => log.claim(k * 400 + (k % 7 === 3 ? 350 : 0), 2.5, 1000));
		expect(busiestWindow(left, 800)).toBeLessThanOrEqual(2);
		expect(Math.max(...left)).toBeLessThanOrEqual(49 * 400 + 400);
	});

	it('a limit changed by the user: the newest times carry over', () => {
		const log = new SendLog();
		for (let k = 0; k < 20; k++) log.claim(k * 50, 20, 1000);
		// now 10 a second: the 10 newest sends (500 to 950) are in the log; the next waits for the oldest to be 1 s old
		expect(log.claim(960, 10, 1000)).toBe(1500);
		expect(log.claim(1000, 40, 1000)).toBe(1000);
	});
});

describe('a send under the API\'s Rate Limit and its Fair Share Key\'s (claimAll)', () => {
	it('leaves when the later of the two lets it, and counts in both at that time', () => {
		const logs = new SendLogs();
		const api = { key: 'api', perWindow: 20, windowMs: 1000 };
		const key = { key: 'api:key:a', perWindow: 2, windowMs: 1000 };
		expect(logs.claimAll([api, key], 0)).toBe(0);
		expect(logs.claimAll([api, key], 10)).toBe(10);
		// the key's third within a second waits for its first to be 1 s old
		expect(logs.claimAll([api, key], 20)).toBe(1000);
		// another key's send is held by the API's limit alone
		expect(logs.claimAll([api, { ...key, key: 'api:key:b' }], 30)).toBe(30);
		// the key's log holds 1000: its next waits for 10 to be 1 s old, and for 1000 after it
		expect(logs.claimAll([api, key], 1005)).toBe(1010);
		expect(logs.claimAll([api, key], 1020)).toBe(2000);
	});

	it('logs idle for a minute are dropped once a thousand are kept: a key may be any customer id', () => {
		const logs = new SendLogs();
		for (let k = 0; k < 1001; k++) logs.claimAll([{ key: `k${k}`, perWindow: 1, windowMs: 1000 }], 0);
		const kept = logs.of('k0');
		// past a minute, the next claim drops every idle log; k0's is made anew, empty
		logs.claimAll([{ key: 'new', perWindow: 1, windowMs: 1000 }], 61_000);
		expect(logs.of('k0')).not.toBe(kept);
		expect(logs.claimAll([{ key: 'k0', perWindow: 1, windowMs: 1000 }], 61_000)).toBe(61_000);
	});

	it('logs used within the minute are kept however many there are: 1,500 customers at once', () => {
		const logs = new SendLogs();
		const one = (k: number, at: number) => logs.claimAll([{ key: `k${k}`, perWindow: 1, windowMs: 1000 }], at);
		for (let k = 0; k < 1500; k++) one(k, k * 10);
		// k0 sent at 0: its next send, 1 s later, still waits for a second after it, whatever was dropped
		expect(one(0, 500)).toBe(1000);
		expect(one(1499, 15_000)).toBe(15_990);
	});
});
