// A child process of the bench holding one slice of a simulated fleet (see `startFleetProcesses` in
// ./fleet.ts). Thousands of simulated terminals in the bench's own process saturate its event loop,
// which also times the figures (roundtrip's POST→success): the slice lives here instead and reports
// only how many of its terminals are online.
import type { SimProtocol, SimulatedDevice } from '../../../src/simulator/index.js';
import { simulated } from './fleet.js';

/** parent → worker */
export type FleetRequest =
  | {
      readonly op: 'init';
      readonly url: string;
      readonly serials: readonly string[];
      readonly protocol: SimProtocol;
      readonly pollDelayMs: number;
    }
  /** start this slice's terminals up to `count` (those already started keep running) */
  | { readonly op: 'start'; readonly count: number }
  | { readonly op: 'serials' }
  /** what the terminals' own user tables hold of these PINs */
  | { readonly op: 'census'; readonly pins: readonly string[] }
  | { readonly op: 'stop' };

/** worker → parent */
export type FleetReport =
  | { readonly op: 'online'; readonly n: number }
  | { readonly op: 'serials'; readonly online: readonly string[] }
  | { readonly op: 'census'; readonly holdingAll: number; readonly holdingAny: number }
  | { readonly op: 'stopped' };

let devices: SimulatedDevice[] = [];
let started = 0;

const send = (m: FleetReport): void => {
  process.send?.(m);
};
const online = (): number => {
  let n = 0;
  for (const d of devices) if (d.stats.online) n++;
  return n;
};

// The count is pushed when it changes (every 100 ms at most), so the parent's `online()` stays a plain read.
let last = -1;
const reporter = setInterval(() => {
  const n = online();
  if (n !== last) send({ op: 'online', n: (last = n) });
}, 100);

process.on('message', (m: FleetRequest) => {
  switch (m.op) {
    case 'init':
      devices = m.serials.map((sn) => simulated(m.url, sn, m.protocol, m.pollDelayMs));
      return;
    case 'start':
      for (; started < Math.min(m.count, devices.length); started++) devices[started]?.start();
      return;
    case 'serials':
      send({ op: 'serials', online: devices.filter((d) => d.stats.online).map((d) => d.sn) });
      return;
    case 'census': {
      let holdingAll = 0;
      let holdingAny = 0;
      for (const d of devices.slice(0, started)) {
        const users = d.users();
        const held = m.pins.reduce((n, pin) => n + (users.has(pin) ? 1 : 0), 0);
        if (held === m.pins.length) holdingAll++;
        if (held > 0) holdingAny++;
      }
      send({ op: 'census', holdingAll, holdingAny });
      return;
    }
    case 'stop':
      clearInterval(reporter);
      void Promise.all(devices.map((d) => d.stop())).finally(() => {
        send({ op: 'stopped' });
        process.disconnect();
      });
      return;
  }
});
// The bench went away (finished, failed or killed): nothing is left running behind it.
process.once('disconnect', () => process.exit(0));
