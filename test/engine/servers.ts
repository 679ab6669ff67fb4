/** Local servers for one test: started on demand, all closed after each test. */
import { startLocalServer, type LocalHandler, type LocalServer } from './local-server';

export function useLocalServers(): (handler: LocalHandler, clock?: () => number) => Promise<LocalServer> {
	const servers: LocalServer[] = [];
	afterEach(async () => {
		await Promise.all(servers.splice(0).map((s) => s.close()));
	});
	return async (handler, clock) => {
		const s = await startLocalServer(handler, clock ? { clock } : {});
		servers.push(s);
		return s;
	};
}
