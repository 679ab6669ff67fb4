/** The order of a queue of waiting requests (nodes/shared/core/traffic/fair-line.ts), and the order a node starts its items in. */
import { CATCH_UP_MS, FairLine, startOrder, type Lane, type Ticket } from '../../../nodes/shared/core/traffic/fair-line';

/** Serves the whole line, front first, as the waiters are woken. */
function serveAll(line: FairLine<string>): string[] {
	const served: string[] = [];
	for (let next = line.first(); next !== undefined; next = line.first()) {
		line.remove(next, true);
		served.push(next);
	}
	return served;
}

describe('FairLine', () => {
	it('without lanes, requests go in the order they came; those ahead (a retry at a pause) before them, in their own order', () => {
		const line = new FairLine<string>();
		line.add('a', undefined, false);
		line.add('b', undefined, false);
		line.add('r1', undefined, true);
		line.add('c', undefined, false);
		line.add('r2', undefined, true);
		expect(serveAll(line)).toEqual(['r1', 'r2', 'a', 'b', 'c']);
	});

	it('the urgent go first, before those ahead, in the order they came', () => {
		const line = new FairLine<string>();
		line.add('a', { share: 'x' }, false);
		line.add('r', { share: 'x' }, true);
		line.add('u1', { share: 'x', urgent: true }, false);
		line.add('b', {}, false);
		line.add('u2', { urgent: true }, false);
		expect(serveAll(line)).toEqual(['u1', 'u2', 'r', 'a', 'b']);
	});

	it('a share that arrives behind a thousand of another takes every other turn from the next one served on', () => {
		const line = new FairLine<string>();
		for (let i = 0; i < 1000; i++) line.add(`big${i}`, { share: 'big' }, false);
		// five of the big share are served before the small one comes
		const first = Array.from({ length: 5 }, () => {
			const next = line.first() as string;
			line.remove(next, true);
			return next;
		});
		expect(first).toEqual(['big0', 'big1', 'big2', 'big3', 'big4']);
		for (let i = 0; i < 3; i++) line.add(`small${i}`, { share: 'small' }, false);
		expect(serveAll(line).slice(0, 8)).toEqual(['big5', 'small0', 'big6', 'small1', 'big7', 'small2', 'big8', 'big9']);
	});

	it('three shares take turns, each in its own order', () => {
		const line = new FairLine<string>();
		for (const [share, n] of [['a', 4], ['b', 2], ['c', 3]] as const) for (let i = 0; i < n; i++) line.add(`${share}${i}`, { share }, false);
		expect(serveAll(line)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
	});

	it('a request that gives up moves nobody\'s turn, and a share that emptied starts again at the current turn', () => {
		const line = new FairLine<string>();
		for (let i = 0; i < 4; i++) line.add(`a${i}`, { share: 'a' }, false);
		line.add('b0', { share: 'b' }, false);
		expect(line.remove('a3', false)).toBe(true);
		expect(line.remove('a3', false)).toBe(false);
		expect(serveAll(line)).toEqual(['a0', 'b0', 'a1', 'a2']);
		// the line is empty: a share that comes back is not owed the turns it missed
		line.add('a4', { share: 'a' }, false);
		line.add('b1', { share: 'b' }, false);
		line.add('a5', { share: 'a' }, false);
		expect(serveAll(line)).toEqual(['a4', 'b1', 'a5']);
	});

	it('a request woken and refused again comes back with its ticket at its turn, not behind its share\'s later requests', () => {
		const line = new FairLine<string>();
		const tickets = new Map<string, Ticket>();
		const add = (name: string, share: string) => {
			const ticket = tickets.get(name) ?? {};
			tickets.set(name, ticket);
			line.add(name, { share }, false, ticket);
		};
		for (let i = 0; i < 3; i++) add(`a${i}`, 'a');
		for (let i = 0; i < 3; i++) add(`b${i}`, 'b');
		// a0 is woken, and refused: it waits again
		line.remove('a0', true);
		add('a0', 'a');
		expect(serveAll(line)).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
		// without its ticket it would have gone behind a2
		const plain = new FairLine<string>();
		for (const name of ['a0', 'a1', 'a2']) plain.add(name, { share: 'a' }, false);
		plain.remove('a0', true);
		plain.add('a0', { share: 'a' }, false);
		expect(serveAll(plain)).toEqual(['a1', 'a2', 'a0']);
	});

	it('with a clock, a share that arrives while another is busy catches up: it goes ahead for the turns served in the last CATCH_UP_MS, then they take turns', () => {
		let now = 0;
		const line = new FairLine<string>(() => now);
		for (let i = 0; i < 100; i++) line.add(`big${i}`, { share: 'big' }, false);
		// the big share alone for 3 s, one served every 50 ms: 60 turns
		for (let i = 0; i < 60; i++) {
			now += 50;
			line.remove(line.first() as string, true);
		}
		for (let i = 0; i < 70; i++) line.add(`small${i}`, { share: 'small' }, false);
		const order = serveAll(line);
		// its first 59 go before the big share's next (it comes after the big share's arrival, at turn 1); then every other turn
		expect(order.slice(0, 59)).toEqual(Array.from({ length: 59 }, (_, i) => `small${i}`));
		expect(order.slice(59, 63)).toEqual(['big60', 'small59', 'big61', 'small60']);
		expect(CATCH_UP_MS).toBe(10_000);
	});

	it('with a clock, the catch-up reaches back CATCH_UP_MS only: a share that arrives after 30 s of another goes ahead for the last 10 s of turns', () => {
		let now = 0;
		const line = new FairLine<string>(() => now);
		for (let i = 0; i < 1000; i++) line.add(`old${i}`, { share: 'old' }, false);
		for (let i = 0; i < 600; i++) {
			now += 50;
			line.remove(line.first() as string, true);
		}
		for (let i = 0; i < 300; i++) line.add(`new${i}`, { share: 'new' }, false);
		const order = serveAll(line);
		// 200 turns served in the last 10 s (one every 50 ms): the new share's first 200 go first
		expect(order.slice(0, 200).every((name) => name.startsWith('new'))).toBe(true);
		expect(order.slice(200, 204)).toEqual(['old600', 'new200', 'old601', 'new201']);
	});

	it('with a clock, a stream of new shares holds an old one back CATCH_UP_MS at most: then it is served as plain turns serve it', () => {
		/** An old share served alone for 10 s, then a new share every 50 ms, one request each, one served every 50 ms: when the old one is served. */
		const stream = (line: FairLine<string>, clock: { now: number }, arrivals: number): number[] => {
			for (let i = 0; i < 1000; i++) line.add(`old${i}`, { share: 'old' }, false);
			for (let i = 0; i < 200; i++) {
				clock.now += 50;
				line.remove(line.first() as string, true);
			}
			const oldServedAt: number[] = [];
			for (let k = 0; k < arrivals; k++) {
				line.add(`new${k}`, { share: `new${k}` }, false);
				clock.now += 50;
				const next = line.first() as string;
				line.remove(next, true);
				if (next.startsWith('old')) oldServedAt.push(clock.now);
			}
			return oldServedAt;
		};
		const clock = { now: 0 };
		const caughtUp = stream(new FairLine<string>(() => clock.now), clock, 600);
		const plain = stream(new FairLine<string>(), { now: 0 }, 400);
		// held back 10 s (its 200 turns of the last 10 s), not longer
		expect(caughtUp[0]).toBeGreaterThanOrEqual(10_000 + 10_000 - 100);
		expect(caughtUp[0]).toBeLessThanOrEqual(10_000 + 10_000 + 100);
		// then as plain turns serve it: the 400 arrivals after its first serve give it as many serves as the first 400 give it without a clock
		expect(caughtUp.filter((t) => t > caughtUp[0] && t <= caughtUp[0] + 400 * 50).length).toBeGreaterThanOrEqual(plain.length - 1);
	});

	it('requests without a key are one share beside the keyed ones', () => {
		const line = new FairLine<string>();
		for (let i = 0; i < 3; i++) line.add(`n${i}`, {}, false);
		line.add('k0', { share: 'k' }, false);
		expect(serveAll(line)).toEqual(['n0', 'k0', 'n1', 'n2']);
	});
});

describe('startOrder', () => {
	const lanes = (spec: string): Array<Lane | undefined> => [...spec].map((c) => (c === '.' ? undefined : c === c.toUpperCase() ? { share: c.toLowerCase(), urgent: true } : { share: c }));

	it('no lanes: input order (undefined, the pool counts on its own)', () => {
		expect(startOrder([undefined, undefined])).toBeUndefined();
	});

	it('the urgent first, then one of each share in the order the shares first appear', () => {
		// a a a a b c a B c
		expect(startOrder(lanes('aaaabcaBc'))).toEqual([7, 0, 4, 5, 1, 8, 2, 3, 6]);
	});

	it('every item once, whatever the shares', () => {
		const spec = Array.from({ length: 500 }, (_, i) => 'abcdeA'[(i * 7) % 6]).join('');
		const order = startOrder(lanes(spec)) as number[];
		expect([...order].sort((x, y) => x - y)).toEqual(Array.from({ length: 500 }, (_, i) => i));
	});
});
