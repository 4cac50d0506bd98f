// Deterministic failure injection: forced return codes by command prefix, a seeded fail rate, and the
// convergence faults (refused user lines, results lost on the way back). Settings may change while the
// device runs (SimulatedDevice.setFaults).

import type { Rng } from './rng.js';

/** Faults that may change at run time. */
export interface FaultSettings {
  /** forced `Return` per command prefix (longest match wins); replaces the previous map */
  readonly returnCodes?: Readonly<Record<string, number>>;
  /** share of user lines (`DATA UPDATE|DELETE` of users, rights, templates) refused with the refusal code; 0–1 */
  readonly refuseRate?: number;
  /** share of executed lines whose result never reaches the server (the line was applied); 0–1 */
  readonly loseRate?: number;
}

export interface FailureInjector {
  /** The forced `Return` code of a command, or undefined to execute it. */
  (command: string): number | undefined;
  /** Whether the result of a line just executed is lost on the way back. */
  lose(): boolean;
  set(settings: FaultSettings): void;
}

/** User, rights and template lines of either dialect: what a roster sync sends. */
const USER_LINE = /^DATA (UPDATE|DELETE) (USERINFO|FINGERTMP|FACE|BIODATA|user|userauthorize|templatev10|biodata|biophoto) /;

export interface FailureCodes {
  /** the generic failure of `failRate` (v2 −1005 busy, v3 −12) */
  readonly fail: number;
  /** the refusal of `refuseRate` (v2 −3 read/write error, v3 −12 execution error) */
  readonly refuse: number;
}

/** `returnCodes` keys are prefixes of the command text; the longest matching key wins. Otherwise a
 *  user line is refused with probability `refuseRate`, and any command fails with probability
 *  `failRate`, drawn from the seeded generator. */
export function createFailureInjector(
  returnCodes: Readonly<Record<string, number>>,
  failRate: number,
  failCode: number | FailureCodes,
  rng: Rng,
  initial: FaultSettings = {},
): FailureInjector {
  const codes = typeof failCode === 'number' ? { fail: failCode, refuse: failCode } : failCode;
  let forced = returnCodes;
  let prefixes = Object.keys(forced).sort((a, b) => b.length - a.length);
  let refuseRate = initial.refuseRate ?? 0;
  let loseRate = initial.loseRate ?? 0;
  const inject = ((command: string) => {
    const key = prefixes.find((p) => command.startsWith(p));
    if (key !== undefined) return forced[key];
    if (refuseRate > 0 && USER_LINE.test(command) && rng.next() < refuseRate) return codes.refuse;
    return failRate > 0 && rng.next() < failRate ? codes.fail : undefined;
  }) as FailureInjector;
  inject.lose = () => loseRate > 0 && rng.next() < loseRate;
  inject.set = (s) => {
    if (s.returnCodes !== undefined) {
      forced = { ...s.returnCodes };
      prefixes = Object.keys(forced).sort((a, b) => b.length - a.length);
    }
    if (s.refuseRate !== undefined) refuseRate = s.refuseRate;
    if (s.loseRate !== undefined) loseRate = s.loseRate;
  };
  return inject;
}
