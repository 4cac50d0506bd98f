// Runs one command line: failure injection first, then the device's dialect.

import { formatResult } from './command-reply.js';
import type { DialectResult, Effect, EnrollRequest, ExecutionContext } from './execution.js';
import type { FailureInjector } from './failure-injection.js';
import { executeV2, v2Echo } from './v2-dialect.js';
import { executeV3, v3Echo } from './v3-dialect.js';

export interface CommandOutcome {
  readonly id: string;
  readonly command: string;
  readonly returnCode: number;
  readonly cmd: string;
  /** the block posted to /iclock/devicecmd */
  readonly result: string;
  readonly effect: Effect;
  readonly enroll: EnrollRequest | undefined;
}

export type CommandExecutor = (id: string, command: string) => Promise<CommandOutcome>;

export function createCommandExecutor(ctx: ExecutionContext, inject: FailureInjector): CommandExecutor {
  const v2 = ctx.profile.protocol === 'v2';
  return async (id, command) => {
    const forced = inject(command);
    // a forced code is an acknowledgement without effect: `Return=0` does not prove the data
    // was applied [PUSH-v2 §8.7]
    const r: DialectResult =
      forced !== undefined
        ? { code: forced, cmd: v2 ? v2Echo(command) : v3Echo(command) }
        : v2
          ? await executeV2(command, ctx)
          : await executeV3(id, command, ctx);
    return {
      id,
      command,
      returnCode: r.code,
      cmd: r.cmd,
      result: formatResult(id, r),
      effect: r.effect ?? 'none',
      enroll: r.enroll,
    };
  };
}
