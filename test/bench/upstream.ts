/** Starts the benchmark upstream (upstream-child.js) in a child process and reads its request log. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface UpstreamRequest {
	method: string;
	path: string;
	/** The last path segment: one logical request (one item of one strategy). */
	key: string;
	status: number | string | undefined;
	/** When the upstream received it (epoch ms, the upstream process's clock). */
	time: number;
	idempotencyKey?: string;
}

export interface Upstream {
	url: string;
	/** The requests received since the last call (the log is emptied). */
	take(): Promise<UpstreamRequest[]>;
	close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
	const child: ChildProcess = fork(path.join(__dirname, 'upstream-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	const nextMessage = (cmd: string) =>
		new Promise<Record<string, unknown>>((resolve, reject) => {
			const onMessage = (message: Record<string, unknown>) => {
				if (message.cmd !== cmd) return;
				child.off('message', onMessage);
				child.off('exit', onExit);
				resolve(message);
			};
			const onExit = (code: number | null) => reject(new Error(`the benchmark upstream exited (code ${code})`));
			child.on('message', onMessage);
			child.once('exit', onExit);
		});
	const { url } = await nextMessage('ready');
	return {
		url: String(url),
		async take() {
			const answer = nextMessage('log');
			child.send({ cmd: 'take' });
			return (await answer).entries as UpstreamRequest[];
		},
		async close() {
			if (child.exitCode !== null) return;
			const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
			child.send({ cmd: 'close' });
			await exited;
		},
	};
}
