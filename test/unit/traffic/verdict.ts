/**
 * A step's result without what it only reports (requests in flight, the window, the budget's
 * counts, the start number, a full window's soonest end): what a worker that merged its counts may
 * see later than other workers added to them (Step.merges). Reports (event lists) stay whole.
 */
export function verdictOf(result: unknown): unknown {
	if (Array.isArray(result) || typeof result !== 'object' || result === null) return result;
	const { inFlight: _inFlight, window: _window, budget: _budget, lease, ...verdict } = result as Record<string, unknown>;
	if (verdict.reason === 'window') delete verdict.until;
	return Array.isArray(lease) ? { ...verdict, lease: [lease[0], lease[1], lease[3]] } : verdict;
}
