/** What a device actor is given (one set shared by every actor), what it is asked and what it answers. */
import type { Charset, DecodeResult, DeviceReply, UserRecord, WireRequest } from '../../protocols/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Command, Device } from '../store/ports/index.js';
import type { EventBus } from '../events/bus.js';
import type { FirmwareCache } from './firmware.js';
import type { DeviceGuard } from './guard.js';
import type { CommandLifecycle } from './lifecycle.js';
import type { ExchangeLog } from './exchange-log.js';
import type { Presence } from './presence.js';
import type { RuntimeConfig } from './runtime-config.js';
import type { AccessTablesHeld } from './progress.js';

export interface ActorDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly presence: Presence;
  /** The terminal exchange log (exchange-log.ts): each answered request is noted. */
  readonly exchanges: ExchangeLog;
  readonly config: RuntimeConfig;
  readonly firmware: FirmwareCache;
  /** Template changes fan out to the location's other devices (sync). */
  readonly onTemplatesChanged: (locationId: number, pins: readonly number[], sourceSn: string) => Promise<void>;
  /** A terminal of the location is now known to store the access tables (registered as v3): they follow its roster. */
  readonly onAccessTablesStored: (locationId: number, sn: string) => Promise<void>;
  /** Counts uploads of tables BioGate does not know (acknowledged so the device does not resend them). */
  readonly onUnknownTable: (table: string) => void;
  /** An audit or a sync-users query found these users on the device (sync/audit.ts compares and repairs). */
  readonly onDeviceUsers: (locationId: number, sn: string, users: readonly UserRecord[], groupId: number | null) => Promise<void>;
  /** An access audit read the terminal's access tables (sync/audit.ts compares and repairs). */
  readonly onAccessTables: (locationId: number, sn: string, held: AccessTablesHeld) => Promise<void>;
  /** The counts a v2 heartbeat reported [PUSH-v2 §7.1] (sync/audit.ts). */
  readonly onReportedCounts: (device: Device, counts: { readonly users: number | null }) => Promise<void>;
  /** A roster sync line refused by the terminal (results.ts ResultContext.onSyncRefused). */
  readonly onSyncRefused: (sn: string, command: Command, code: number, message: string) => Promise<void>;
  readonly lifecycle: CommandLifecycle;
  /** Counts a result for a command this device was not sent. */
  readonly onStrayResult: () => void;
  /** Comm key throttle and refusal metrics, shared by every actor (devices/guard.ts). */
  readonly guard: DeviceGuard;
  /** This node's name: the owner written into the device's lease. */
  readonly node: string;
  /** A terminal another node served until now came here: that node must let go (the feed tells it). */
  readonly onTakeover: (sn: string, previous: string) => void;
  /**
   * Whether the event feed announces every change to this node now (it follows the other nodes and
   * processes): then idle polls trust what the actor holds for longer, and held polls do not look
   * at the store on a timer (RuntimeConfig.pollTrust).
   */
  readonly feedTrusted: () => boolean;
}

/** A reply, and what to do once it is known whether the terminal received it (see Batch); `charset`
 *  other than UTF-8 when the body must be sent in the device's character set [COMMANDS §3.10]. */
export type ActorReply = DeviceReply & { readonly onSettled?: (delivered: boolean) => void; readonly charset?: Charset };

export interface PushRequest {
  readonly wire: WireRequest;
  /** The request as the push route decoded it, before the device (and so its language) was known. */
  readonly decoded: DecodeResult;
  readonly remoteAddress: string;
  /** The terminal's side of the exchange: whether it went away, and a signal (made on first use) to wait on. */
  readonly client: { readonly gone: boolean; readonly signal: AbortSignal };
}

/** Longest raw record stored (characters); a longer one is counted but not kept. */
export const MAX_RAW_RECORD_CHARS = 64 * 1024;

export const textReply = (status: number, body: string): DeviceReply => ({ status, contentType: 'text/plain', body });
