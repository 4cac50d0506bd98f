// What a handshake leaves behind, shared by the v2 and v3 session flows.

import type { HttpReply } from './http-transport.js';
import type { RequestSpec, Upload } from './uploads.js';
import { parseIntStrict } from './wire-text.js';

export interface SessionState {
  readonly established: boolean;
  /** keys of the handshake / configuration reply, as received */
  readonly serverOptions: ReadonlyMap<string, string>;
  /** v2 `Delay` / v3 `RequestDelay` */
  readonly delayS: number | undefined;
  readonly errorDelayS: number | undefined;
  /** v2 `Timeout` / v3 `TimeoutSec` */
  readonly timeoutS: number | undefined;
  readonly realtime: boolean;
  /** v2 `TimeZone`, in minutes */
  readonly utcOffsetMinutes: number | undefined;
  /** v2 `ATTLOGStamp=0`: re-upload all attendance [PUSH-v2 §4.7] */
  readonly fullReupload: boolean;
  readonly registryCode: string | null;
  readonly sessionId: string | null;
  readonly token: string | null;
}

export const NO_SESSION: SessionState = {
  established: false,
  serverOptions: new Map(),
  delayS: undefined,
  errorDelayS: undefined,
  timeoutS: undefined,
  realtime: true,
  utcOffsetMinutes: undefined,
  fullReupload: false,
  registryCode: null,
  sessionId: null,
  token: null,
};

export interface HandshakeOutcome {
  readonly state: SessionState;
  /** protocol rules the server's replies broke */
  readonly warnings: readonly string[];
  /** the `table=options` upload to send, if any */
  readonly optionsUpload: Upload | null;
}

/** The device's way to reach the server (cookie, timeout and abort handled by the caller). */
export type Send = (spec: RequestSpec, contentType?: string) => Promise<HttpReply>;

/** `Key=Value` lines, split at the first `=`; lines without one are skipped. */
export function keyValues(lines: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of lines) {
    const eq = line.indexOf('=');
    if (eq > 0) map.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return map;
}

/** A non-negative whole number of seconds, or undefined. */
export function secondsOf(map: ReadonlyMap<string, string>, key: string): number | undefined {
  const n = parseIntStrict(map.get(key));
  return n !== undefined && n >= 0 ? n : undefined;
}
