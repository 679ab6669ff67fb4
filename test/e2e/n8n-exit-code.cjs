// Preloaded (`node --require`) into the n8n commands the harness runs to completion (import,
// publish, execute): writes the exit code n8n asks for to stderr as the process's last words.
//
// Why: n8n 2.41's commands end in process.exit() with isolated-vm loaded (its expression engine).
// Now and then (about 1 in 30 failed executions on 2 busy cores, twice in a row on CI) the process
// then dies of SIGSEGV inside exit(): a core dump shows the main thread in isolated-vm's exit
// handler (ivm::thread_pool_t::~thread_pool_t, joining its threads) while one of those threads
// still runs V8 (v8::internal::Factory::NewMap) after Node tore V8's platform down. n8n has finished
// by then: its output is written and its database closed. Disposing n8n's expression engine first
// (as its exitSuccessFully does) did not prevent it (1 crash in 70 runs). The harness reads this
// line to tell that crash, after n8n chose its exit code, from a crash while n8n ran.
'use strict';

const MARKER = '[n8n-exit-code] ';
const exit = process.exit.bind(process);
let announced = false;

process.exit = function exitAnnounced(code) {
	if (!announced) {
		announced = true;
		// stderr is a pipe, written synchronously on Linux: the line is out before exit() runs
		process.stderr.write(`\n${MARKER}${code ?? process.exitCode ?? 0}\n`);
	}
	return exit(code);
};
