// Flags of `biogate simulate`, all validated at once.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MAX_DEVICES } from './simulation.js';
import type { SimFaults, SimProtocol } from './types.js';

export interface SimulateArgs {
  readonly url: string;
  readonly devices: number;
  readonly protocol: SimProtocol | 'mixed';
  readonly snPrefix: string;
  readonly durationS: number | undefined;
  readonly punchesPerMinute: number | undefined;
  readonly fast: boolean;
  /** convergence faults (each terminal): refusal and lost-result rates, a wipe, keypad users; absent when none */
  readonly faults?: SimFaults;
}

export type ParsedSimulateArgs =
  | { readonly kind: 'run'; readonly args: SimulateArgs }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly errors: readonly string[] };

export const SIMULATE_USAGE = `Usage: biogate simulate --devices N --protocol v2|v3|mixed --url URL --sn-prefix PREFIX
                        [--duration S] [--punch-rate PER_MIN] [--fast]
                        [--refuse-rate R] [--lose-rate R] [--wipe-after S] [--keypad-users N]

Runs N simulated terminals against a BioGate server until the duration ends or Ctrl-C.

  --devices N          number of terminals, 1-${MAX_DEVICES}
  --protocol P         v2 (attendance PUSH), v3 (security PUSH) or mixed (alternating)
  --url URL            server base URL, http:// or https://
  --sn-prefix PREFIX   serial-number prefix, 1-16 letters or digits (PREFIX0001, PREFIX0002, ...)
  --duration S         run time in seconds, 1-86400 (default: until interrupted)
  --punch-rate N       attendance punches per minute across all terminals, 0-600000 (default 0)
  --fast               poll again right after posting command results (benchmarks)
  --refuse-rate R      share of user lines each terminal refuses (v2 Return -3, v3 -12), 0-1 (default 0)
  --lose-rate R        share of executed lines whose result never reaches BioGate (applied), 0-1 (default 0)
  --wipe-after S       factory reset (users, templates, rights erased) S seconds after start, 1-86400
  --keypad-users N     users enrolled at each terminal's keypad before start (PINs 90001 up), 0-10000
  -h, --help           show this help
`;

const VALUE_FLAGS = [
  '--devices',
  '--protocol',
  '--url',
  '--sn-prefix',
  '--duration',
  '--punch-rate',
  '--refuse-rate',
  '--lose-rate',
  '--wipe-after',
  '--keypad-users',
] as const;
type ValueFlag = (typeof VALUE_FLAGS)[number];
const REQUIRED: readonly ValueFlag[] = ['--devices', '--protocol', '--url', '--sn-prefix'];

const isValueFlag = (s: string): s is ValueFlag => (VALUE_FLAGS as readonly string[]).includes(s);

/** node:util parseArgs options: every flag `multiple`, so a repeated one is seen and reported. */
const OPTIONS = {
  ...Object.fromEntries(VALUE_FLAGS.map((f) => [f.slice(2), { type: 'string', multiple: true }])),
  fast: { type: 'boolean', multiple: true },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

function integerIn(flag: string, raw: string, min: number, max: number, errors: string[]): number | undefined {
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (n >= min && n <= max) return n;
  errors.push(`${flag} must be an integer from ${min} to ${max}, got '${raw}'`);
  return undefined;
}

function rateOf(flag: string, raw: string, errors: string[]): number | undefined {
  const n = /^(0(\.\d{1,6})?|1(\.0{1,6})?)$/.test(raw) ? Number(raw) : Number.NaN;
  if (n >= 0 && n <= 1) return n;
  errors.push(`${flag} must be a number from 0 to 1, got '${raw}'`);
  return undefined;
}

/**
 * parseArgs takes the argument after a value flag as its value even when it is the next flag
 * (`--devices --protocol v2`); such a flag is given an empty inline value instead, so it reads
 * "needs a value" and the next flag still counts.
 */
function emptyWhenFlagFollows(argv: readonly string[]): string[] {
  return argv.map((arg, i) => (isValueFlag(arg) && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--')) ? `${arg}=` : arg));
}

/** Parsed by node:util parseArgs (non-strict, so every problem is collected and reported at once). */
export function parseSimulateArgs(argv: readonly string[]): ParsedSimulateArgs {
  const { tokens } = parseArgs({ args: emptyWhenFlagFollows(argv), options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { kind: 'help' };
  const errors: string[] = [];
  const values = new Map<ValueFlag, string>();
  let fast = false;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      errors.push(`unexpected argument '${token.value}'`);
      continue;
    }
    if (token.kind !== 'option') continue; // `--` terminator
    const name = `--${token.name}`;
    if (name === '--fast') {
      if (token.inlineValue) errors.push('--fast takes no value');
      else if (fast) errors.push('--fast given twice');
      else fast = true;
      continue;
    }
    if (!isValueFlag(name)) {
      errors.push(`unknown flag ${token.rawName} (valid: ${[...VALUE_FLAGS, '--fast', '--help'].join(', ')})`);
      continue;
    }
    if (token.value === undefined || token.value === '') errors.push(`${name} needs a value`);
    else if (values.has(name)) errors.push(`${name} given twice`);
    else values.set(name, token.value);
  }

  const raw = (flag: ValueFlag): string | undefined => values.get(flag);
  const devicesRaw = raw('--devices');
  const devices = devicesRaw === undefined ? undefined : integerIn('--devices', devicesRaw, 1, MAX_DEVICES, errors);
  const protocol = raw('--protocol');
  if (protocol !== undefined && protocol !== 'v2' && protocol !== 'v3' && protocol !== 'mixed') {
    errors.push(`--protocol must be v2, v3 or mixed, got '${protocol}'`);
  }
  const url = raw('--url');
  if (url !== undefined && !(URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol))) {
    errors.push(`--url must be an http:// or https:// URL, got '${url}'`);
  }
  const snPrefix = raw('--sn-prefix');
  if (snPrefix !== undefined && !/^[A-Za-z0-9]{1,16}$/.test(snPrefix)) {
    errors.push(`--sn-prefix must be 1-16 letters or digits, got '${snPrefix}'`);
  }
  const durationRaw = raw('--duration');
  const durationS = durationRaw === undefined ? undefined : integerIn('--duration', durationRaw, 1, 86_400, errors);
  const rateRaw = raw('--punch-rate');
  const punchesPerMinute = rateRaw === undefined ? undefined : integerIn('--punch-rate', rateRaw, 0, 600_000, errors);

  const faults: {
    refuseRate?: number | undefined;
    loseRate?: number | undefined;
    wipeAfterS?: number | undefined;
    keypadUsers?: number | undefined;
  } = {};
  const refuse = raw('--refuse-rate');
  if (refuse !== undefined) faults.refuseRate = rateOf('--refuse-rate', refuse, errors);
  const lose = raw('--lose-rate');
  if (lose !== undefined) faults.loseRate = rateOf('--lose-rate', lose, errors);
  const wipe = raw('--wipe-after');
  if (wipe !== undefined) faults.wipeAfterS = integerIn('--wipe-after', wipe, 1, 86_400, errors);
  const keypad = raw('--keypad-users');
  if (keypad !== undefined) faults.keypadUsers = integerIn('--keypad-users', keypad, 0, 10_000, errors);

  for (const flag of REQUIRED) if (!values.has(flag) && !errors.some((e) => e.startsWith(`${flag} `))) errors.push(`${flag} is required`);
  if (errors.length > 0) return { kind: 'error', errors };
  return {
    kind: 'run',
    args: {
      url: url as string,
      devices: devices as number,
      protocol: protocol as SimProtocol | 'mixed',
      snPrefix: snPrefix as string,
      durationS,
      punchesPerMinute,
      fast,
      ...(Object.values(faults).some((v) => v !== undefined)
        ? { faults: Object.fromEntries(Object.entries(faults).filter(([, v]) => v !== undefined)) as SimFaults }
        : {}),
    },
  };
}
