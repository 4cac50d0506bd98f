// The contract between the command executor, the two dialects and the device that runs them.

import type { DeviceMemory } from './memory.js';
import type { DeviceProfile } from './profile.js';
import type { Upload } from './uploads.js';

/** The device's I/O as a command sees it. */
export interface ExecutorIo {
  /** upload data; resolves true when the server acknowledged it now (otherwise it is re-sent later) */
  upload(u: Upload): Promise<boolean>;
  /** one attempt to deliver a v3 querydata packet; true when the server answered 200 */
  answer(u: Upload): Promise<boolean>;
  /** firmware download for UPGRADE: via `/iclock/file` or, when direct, the URL itself; null on failure */
  download(url: string, direct: boolean): Promise<Buffer | null>;
}

export interface ExecutionContext {
  readonly profile: DeviceProfile;
  readonly memory: DeviceMemory;
  readonly io: ExecutorIo;
  now(): Date;
  /** v3 only: also accept the v2 words some `acc` terminals still take (F1, F4) */
  readonly acceptV2Words: boolean;
}

/** What happens to the session after the results are posted. */
export type Effect = 'none' | 'restart' | 'rehandshake' | 'flush';

/** A remote enrolment the device completes after a delay, then uploads the template. */
export interface EnrollRequest {
  readonly pin: string;
  readonly type: number;
  readonly no: number;
}

/** A dialect's decision for one command. */
export interface DialectResult {
  readonly code: number;
  /** the `CMD` echo */
  readonly cmd: string;
  /** extra `Key=Value` lines after the result line (INFO, GET OPTION) [PUSH-v2 §8.2] */
  readonly lines?: readonly string[];
  /** key-per-line block ending in `Content=` (Shell) [PUSH-v2 §8.2] */
  readonly content?: string;
  readonly effect?: Effect;
  readonly enroll?: EnrollRequest;
}
