// The baseline: a raw uWebSockets.js hello world, in its own process: the same package BioGate's
// src/http is built on, doing no work but reading the body and answering "OK". Any method, any path,
// so the very same wrk script / autocannon requests can drive it and BioGate.
// Run: node dist/test/bench/lib/uws-hello.js  → prints "listening <port>" on stdout.
import { createRequire } from 'node:module';
// eslint-disable-next-line no-restricted-imports -- the baseline must be the raw package, outside BioGate's one door (src/http)
import type * as UWS from 'uWebSockets.js';

const uws = createRequire(import.meta.url)('uWebSockets.js') as typeof UWS;
if (typeof uws.getParts !== 'function') throw new Error('uWebSockets.js native binary did not load');

const app = uws.App();
app.any('/*', (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  // Read (and drop) the body like a real handler must before answering a POST.
  res.onData((_chunk, isLast) => {
    if (isLast && !aborted) res.cork(() => res.writeStatus('200 OK').writeHeader('content-type', 'text/plain').end('OK'));
  });
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) throw new Error('uws-hello: cannot listen');
  process.stdout.write(`listening ${uws.us_socket_local_port(socket)}\n`);
});
