// The boundary between bytes and meaning (DESIGN.md "Bytes stay in protocols/").
//
// A Codec is chosen once per device (index.ts `codecFor`). Decoding is the same for both generations:
// BioGate answers every endpoint of both flows whatever it believes a device speaks [PUSH-v2 §10.3],
// so `codecFor('2.0.0').decode` and `codecFor('3.0.0').decode` read any request. What differs by
// version is what BioGate *sends*: command wire strings, handshake and configuration replies.
//
// Errors: `decode` throws `ProtocolError` (code in protocol-error.ts) for a request it cannot attribute
// or route (no SN, unknown endpoint); it never throws anything else. Bad records inside a body are
// skipped and counted in `DecodeResult.rejected`. Encoders never throw: they return `EncodeResult`.
import type { PresetId, ProtocolMajor } from './catalog.js';
import type {
  DeviceProfile,
  EncodeContext,
  EncodeResult,
  PresetCommand,
  ProtocolVersion,
  QueuedLine,
  SyncOp,
  WireLines,
} from './commands.js';
import type { DeviceEvent } from './events.js';

export type * from './events.js';
export type * from './commands.js';
export { ProtocolError, type ProtocolErrorCode } from './protocol-error.js';

/** An incoming device request, as the HTTP layer read it. */
export interface WireRequest {
  readonly method: string;
  /** path without the query string, e.g. `/iclock/cdata` (doubled `/iclock/iclock/` is accepted) */
  readonly path: string;
  /** query parameters, original keys, URL-decoded values */
  readonly query: Readonly<Record<string, string>>;
  /** header names lower-cased */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** What BioGate sends back. The server adds the HTTP `Date` header (see `httpDate`) [PUSH-v2 §2.7]. */
export interface DeviceReply {
  readonly status: number;
  readonly contentType: 'text/plain';
  readonly body: string;
}

export type Endpoint =
  | 'cdata'
  | 'getrequest'
  | 'devicecmd'
  | 'ping'
  | 'fdata'
  | 'file'
  | 'exchange'
  | 'registry'
  | 'push'
  | 'querydata'
  | 'rtdata'
  | 'service-control';

/** The reply a decoded request needs. Upload forms are rendered by `replies.upload(plan, accepted)`. */
export type ReplyPlan =
  /** body `OK` */
  | { readonly kind: 'ok' }
  /** body `OK: ${accepted}` [PUSH-v2 §6.1] */
  | { readonly kind: 'okCount' }
  /** body `${table}=${accepted}` — never a plain OK [PUSH-v3 §7.1] */
  | { readonly kind: 'tableCount'; readonly table: string }
  /** body `${table}=${count}` with the count the device declared (querydata options, raw transfers) [PUSH-v3 §10.2] */
  | { readonly kind: 'tableEcho'; readonly table: string; readonly count: number }
  /** body `${table}=-731` ("server received the data abnormally"): the body held `received` records where
   *  the device declared `declared`; nothing of it was kept, the device sends it again */
  | { readonly kind: 'countMismatch'; readonly table: string; readonly declared: number; readonly received: number }
  /** `replies.handshake(...)` */
  | { readonly kind: 'handshake' }
  /** `replies.registry(code)` or `replies.registryRefused()` */
  | { readonly kind: 'registry' }
  /** `replies.config(...)` */
  | { readonly kind: 'config' }
  /** `replies.commands(lines)` (long-poll first if idle) */
  | { readonly kind: 'commands' }
  /** `replies.time(now, timeZone, flavor)` */
  | { readonly kind: 'time'; readonly flavor: 'iso' | 'rtdata' }
  /** `replies.remoteUser(lines)` */
  | { readonly kind: 'remoteUser' }
  /** the runtime serves the firmware file */
  | { readonly kind: 'file' };

export interface DecodeResult {
  readonly endpoint: Endpoint;
  readonly sn: string;
  readonly events: readonly DeviceEvent[];
  readonly reply: ReplyPlan;
  /** records (lines) that could not be decoded; log them, do not count them as accepted [PUSH-v2 §6.1] */
  readonly rejected: number;
  /** the first few rejected lines, each cut to 200 characters, for the log */
  readonly rejectedSamples: readonly string[];
  /** `Cookie: token=` [PUSH-v3 §5]; the device runtime checks it once the terminal is bound to it (src/devices/trust.ts) */
  readonly token: string | null;
}

export interface DecodeOptions {
  /** the device's `language` (from its handshake): `83` allows GB2312 names [PUSH-v2 §2.6] */
  readonly language?: string;
}

/** v2 §4.5 per-device override of the TimeZone unit. */
export type TimeZoneUnit = 'auto' | 'hours' | 'minutes' | 'hh:mm';

export interface HandshakeReplyInput {
  readonly sn: string;
  /** IANA zone of the device's location */
  readonly timeZone: string;
  readonly now: Date;
  /** v2: answer `ATTLOGStamp=0` once (full attendance re-upload pending) [PUSH-v2 §4.7] */
  readonly fullAttlogReupload?: boolean;
  /** v2 `Delay` (default 10) / v3 `RequestDelay` (default 5), seconds */
  readonly pollSeconds?: number;
  /** v2 TimeZone unit override (default auto) [PUSH-v2 §4.5] */
  readonly timeZoneUnit?: TimeZoneUnit;
  /** v2: the handshake had no `pushver`: add the PUSH 1.0 `Stamp`/`OpStamp`/`PhotoStamp` keys [PUSH-v2 §4.4] */
  readonly legacyStamps?: boolean;
  /** v3: present when BioGate has issued a RegistryCode to this SN [PUSH-v3 §3.2] */
  readonly registration?: { readonly registryCode: string; readonly sessionId: string };
  /** v3 PushProtVer (default 3.0.1) [PUSH-v3 §4.2] */
  readonly pushProtVer?: '3.0.1' | '3.1.1' | '3.1.2';
}

export interface ConfigReplyInput {
  readonly sessionId: string;
  /** RequestDelay seconds (default 5) */
  readonly pollSeconds?: number;
  readonly pushProtVer?: '3.0.1' | '3.1.1' | '3.1.2';
}

export interface CommandsReplyOptions {
  /** v3 CmdFormat=1 devices (registry body `CmdFormat=1`): prefixed lines [PUSH-v3 §8.2] */
  readonly cmdFormat?: 0 | 1;
  /** serial number for the CmdFormat=1 prefix */
  readonly sn?: string;
}

export interface Replies {
  /** `options=all`: v2 `GET OPTION FROM:` block [PUSH-v2 §4.4]; v3 `OK` when unregistered, else
   *  `registry=ok` + configuration [PUSH-v3 §3.2, §4.3] */
  handshake(input: HandshakeReplyInput): DeviceReply;
  /** `RegistryCode=${code}` [PUSH-v3 §3.3] */
  registry(registryCode: string): DeviceReply;
  /** HTTP 406 [PUSH-v3 §3.3] */
  registryRefused(): DeviceReply;
  /** `/iclock/push` configuration [PUSH-v3 §4.2] */
  config(input: ConfigReplyInput): DeviceReply;
  /** ok / okCount / tableCount / tableEcho / countMismatch plans; `accepted` = records stored or recognised as duplicates */
  upload(plan: ReplyPlan, accepted: number): DeviceReply;
  /** getrequest: `OK` when `lines` is empty, else `C:${id}:${wire}` lines [PUSH-v2 §7.2] */
  commands(lines: readonly QueuedLine[], options?: CommandsReplyOptions): DeviceReply;
  /** `OK` (devicecmd, ping, rtlog, exchange, service/control …) */
  ok(): DeviceReply;
  /** v2 `Time=${iso local}` [PUSH-v2 §4.8] or v3 `DateTime=${packed UTC},ServerTZ=${±hhmm}` [PUSH-v3 §13.2] */
  time(now: Date, timeZone: string, flavor: 'iso' | 'rtdata'): DeviceReply;
  /** v2 RemoteAtt: DATA UPDATE lines without `C:` framing, or an empty body [PUSH-v2 §6.10] */
  remoteUser(lines: readonly string[]): DeviceReply;
}

export type Capability = 'supported' | 'unsupported' | 'unknown';

export type CommandOutcome =
  { readonly status: 'success' } | { readonly status: 'pending' } | { readonly status: 'failed'; readonly message: string };

export interface Codec {
  readonly version: ProtocolVersion;
  readonly major: ProtocolMajor;
  /** Whether the device's user record holds an access window (v3 StartTime/EndTime [COMMANDS §3.4]);
   *  v2 USERINFO has none, so the gateway enforces the window by deleting and re-adding the user. */
  readonly storesUserWindow: boolean;
  /** Whether the dialect writes the access tables (`timezone`, `holiday`, `userauthorize` [PUSH-v3 §11.2]): v3. */
  readonly storesAccessTables: boolean;
  /** @throws ProtocolError — and nothing else */
  decode(request: WireRequest, options?: DecodeOptions): DecodeResult;
  /** A preset's wire line(s) [COMMANDS §4, §6]. */
  encodePreset(command: PresetCommand, profile: DeviceProfile, context: EncodeContext): EncodeResult;
  /** A sync operation's wire line(s) [COMMANDS §5]. */
  encodeSync(op: SyncOp, profile: DeviceProfile, context: EncodeContext): EncodeResult;
  /** Clock sync: v2 `CHECK` (the re-handshake carries TimeZone and the Date header) [PUSH-v2 §9.2];
   *  v3 `SET OPTIONS DateTime=${packed local}` [PUSH-v3 §11.6]. */
  encodeTimeSync(now: Date, timeZone: string): EncodeResult;
  /** [COMMANDS §2.5] the one automatic fallback for a preset answered with `returnCode`, if any. */
  presetFallback(command: PresetCommand, returnCode: number): WireLines | undefined;
  /** [COMMANDS §2.5] v2 fingerprint sync answered -1002/-11/-12 → BIODATA form; undefined otherwise. */
  syncFallback(op: SyncOp, returnCode: number, profile: DeviceProfile): WireLines | undefined;
  /** [COMMANDS §2.6] what a Return code teaches about the command word. */
  classifyReturn(returnCode: number): Capability;
  /** The key capability learning is stored under: command word, DATA verb + table, CONTROL DEVICE op. */
  capabilityKey(wire: string): string;
  /** Meaning of a Return code [PUSH-v2 §8.5–§8.6, PUSH-v3 §12]. */
  describeReturnCode(returnCode: number, preset?: PresetId): string;
  /** Success / failure / pending of a result, with the `error_message` [PUSH-v2 §8.7, PUSH-v3 §12]. */
  outcome(returnCode: number, preset?: PresetId): CommandOutcome;
  /** REBOOT / restart / UPGRADE end a getrequest batch [PUSH-v2 §7.3, PUSH-v3 §8.3]. */
  endsBatch(wire: string): boolean;
  readonly replies: Replies;
}
