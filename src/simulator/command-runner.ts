// The commands of one getrequest reply: executed in order, recorded, and their results posted
// together [PUSH-v2 §7.3, §8.1].

import type { CommandExecutor } from './command-executor.js';
import type { Effect, EnrollRequest } from './execution.js';
import type { HttpReply } from './http-transport.js';
import { SimulatorError } from './sim-error.js';
import type { CommandListener, ExecutedCommand, SimulatedDeviceStats } from './types.js';
import type { RequestSpec } from './uploads.js';

/** results waiting to be posted */
const MAX_RESULTS = 1000;
/** executed() keeps the newest entries */
const MAX_EXECUTED = 10_000;

const EFFECT_RANK: Readonly<Record<Effect, number>> = { none: 0, flush: 1, rehandshake: 2, restart: 3 };

export interface CommandRunnerOptions {
  readonly sn: string;
  readonly stats: SimulatedDeviceStats;
  readonly execute: CommandExecutor;
  /** whether the result of a line just executed is lost on the way back (fault injection) */
  lose(): boolean;
  send(spec: RequestSpec): Promise<HttpReply>;
  /** count a failure in the device's stats */
  fail(err: unknown): void;
  /** record a protocol warning */
  warn(message: string): void;
}

export interface ReplyOutcome {
  /** commands executed (not those lost after a restart) */
  readonly executed: number;
  /** the strongest effect any command asked for */
  readonly effect: Effect;
  readonly enrolments: readonly EnrollRequest[];
}

export class CommandRunner {
  readonly #opts: CommandRunnerOptions;
  readonly #listeners = new Set<CommandListener>();
  #executed: ExecutedCommand[] = [];
  #results: string[] = [];

  constructor(opts: CommandRunnerOptions) {
    this.#opts = opts;
  }

  executed(): readonly ExecutedCommand[] {
    return this.#executed;
  }

  onCommand(listener: CommandListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Execute the commands of one reply and post their results in one request. */
  async run(commands: ReadonlyArray<{ readonly id: string; readonly command: string }>): Promise<ReplyOutcome> {
    const { stats } = this.#opts;
    let effect: Effect = 'none';
    let executed = 0;
    const enrolments: EnrollRequest[] = [];
    const results: string[] = [];
    for (const { id, command } of commands) {
      stats.commandsReceived++;
      if (effect === 'restart') {
        // [PUSH-v2 §7.3] anything after a restart command is lost
        stats.commandsLost++;
        this.#record({ id, command, returnCode: null, cmd: null });
        continue;
      }
      const outcome = await this.#opts.execute(id, command);
      executed++;
      const key = String(outcome.returnCode);
      stats.commandsByCode[key] = (stats.commandsByCode[key] ?? 0) + 1;
      this.#record({ id, command, returnCode: outcome.returnCode, cmd: outcome.cmd });
      // Applied, but its result never reaches the server (a lost reply).
      if (this.#opts.lose()) stats.resultsLost++;
      else results.push(outcome.result);
      if (outcome.enroll !== undefined) enrolments.push(outcome.enroll);
      if (EFFECT_RANK[outcome.effect] > EFFECT_RANK[effect]) effect = outcome.effect;
    }
    if (results.length > 0) {
      this.#results = this.#results.concat(results).slice(-MAX_RESULTS);
      // [PUSH-v2 §8.1] all results of one reply in one POST (fixture A28)
      await this.postResults();
    }
    return { executed, effect, enrolments };
  }

  #record(entry: ExecutedCommand): void {
    this.#executed.push(entry);
    if (this.#executed.length > MAX_EXECUTED + MAX_EXECUTED / 10) this.#executed = this.#executed.slice(-MAX_EXECUTED);
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch (err) {
        this.#opts.fail(err);
      }
    }
  }

  /** Post the results not yet delivered; on failure they are kept and posted again before the next poll. */
  async postResults(): Promise<void> {
    if (this.#results.length === 0) return;
    const sent = this.#results.length;
    try {
      const reply = await this.#opts.send({
        method: 'POST',
        path: '/iclock/devicecmd',
        query: [['SN', this.#opts.sn]],
        body: this.#results.join('\n'),
      });
      if (reply.status !== 200) throw new SimulatorError('http', `devicecmd answered HTTP ${reply.status}`);
      this.#opts.stats.resultPosts++;
      this.#results.splice(0, sent);
      if (reply.text.trim() !== 'OK') this.#opts.warn(`devicecmd reply is not OK [PUSH-v2 §8.1]: ${JSON.stringify(reply.text)}`);
    } catch (err) {
      this.#opts.fail(err);
    }
  }
}
