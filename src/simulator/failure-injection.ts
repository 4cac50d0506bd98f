// Deterministic failure injection: forced return codes by command prefix, and a seeded fail rate.

import type { Rng } from './rng.js';

/** The forced `Return` code of a command, or undefined to execute it. */
export type FailureInjector = (command: string) => number | undefined;

/** `returnCodes` keys are prefixes of the command text; the longest matching key wins. Otherwise a
 *  command fails with `failCode` with probability `failRate`, drawn from the seeded generator. */
export function createFailureInjector(
  returnCodes: Readonly<Record<string, number>>,
  failRate: number,
  failCode: number,
  rng: Rng,
): FailureInjector {
  const prefixes = Object.keys(returnCodes).sort((a, b) => b.length - a.length);
  return (command) => {
    const key = prefixes.find((p) => command.startsWith(p));
    if (key !== undefined) return returnCodes[key];
    return failRate > 0 && rng.next() < failRate ? failCode : undefined;
  };
}
