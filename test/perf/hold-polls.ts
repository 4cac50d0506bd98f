// Holds HOLD_TERMINALS getrequests open against a BioGate node (one socket per terminal, re-polling as
// soon as a poll is answered), for measuring memory per held terminal (issue #20) with the server in a
// process of its own (test/perf/serve-for-load.ts, LOAD_VERSION=3.0.0). Prints `holding N` each second.
//
// Run: node dist/test/perf/hold-polls.js URL [HOLD_TERMINALS=10000] [PREFIX=LOAD]
import { Agent, request } from 'node:http';

const [url = '', countText = '10000', prefix = 'LOAD'] = process.argv.slice(2);
const count = Number(countText);
const { hostname, port } = new URL(url);
let holding = 0;

function poll(sn: string, agent: Agent): void {
  const req = request({ host: hostname, port, path: `/iclock/getrequest?SN=${sn}`, agent }, (res) => {
    res.resume();
    res.on('end', () => setImmediate(() => poll(sn, agent)));
  });
  req.on('error', () => setTimeout(() => poll(sn, agent), 1_000));
  req.end();
}

for (let i = 0; i < count; i++) {
  // One keep-alive socket per terminal, as a terminal has.
  poll(`${prefix}${String(i).padStart(5, '0')}`, new Agent({ keepAlive: true, maxSockets: 1 }));
  holding++;
  if (i % 500 === 499) await new Promise((r) => setTimeout(r, 50));
}
setInterval(() => process.stdout.write(`holding ${holding}\n`), 1_000);
