import { onAbort } from '../../nodes/shared/core/abort-listeners';

describe('onAbort: one listener per signal', () => {
	it('calls each subscriber once, in the order they subscribed, through one listener on the signal', () => {
		const controller = new AbortController();
		const added = jest.spyOn(controller.signal, 'addEventListener');
		const calls: string[] = [];
		onAbort(controller.signal, () => calls.push('a'));
		onAbort(controller.signal, () => calls.push('b'));
		onAbort(controller.signal, () => calls.push('c'));
		expect(added).toHaveBeenCalledTimes(1);
		controller.abort();
		controller.signal.dispatchEvent(new Event('abort'));
		expect(calls).toEqual(['a', 'b', 'c']);
	});

	it('does not call a subscriber that unsubscribed, and unsubscribing twice is harmless', () => {
		const controller = new AbortController();
		const calls: string[] = [];
		const stop = onAbort(controller.signal, () => calls.push('gone'));
		onAbort(controller.signal, () => calls.push('kept'));
		stop();
		stop();
		controller.abort();
		expect(calls).toEqual(['kept']);
	});

	it('never calls a subscriber of a signal that had already aborted, nor without a signal', () => {
		const controller = new AbortController();
		controller.abort();
		const listener = jest.fn();
		onAbort(controller.signal, listener)();
		onAbort(undefined, listener)();
		expect(listener).not.toHaveBeenCalled();
	});
});
