/** The device runtime's settings, derived from Config once (and overridable in tests). */
import { byVersion, PROTOCOL_V3 } from '../../protocols/index.js';
import type { Config } from '../config/schema.js';
import type { ProtocolVersion } from '../store/ports/index.js';

export interface RuntimeConfig {
  readonly onlineThresholdS: number;
  /** Held getrequest time per dialect, in seconds. */
  readonly longpollS: Readonly<Record<ProtocolVersion, number>>;
  readonly ackTimeoutS: number;
  readonly batchMaxCommands: number;
  readonly batchMaxBytes: number;
  readonly maxUnassigned: number;
  /** Actors idle this long (no request, no held poll) are dropped from memory; their state is in the store. */
  readonly idleEvictS: number;
  /**
   * Immediate re-renders of a sync op whose line the terminal refused as unsupported (the next render
   * takes the fallback form or skips the line [COMMANDS §2.5]); other re-sends are unbounded (syncRetryMaxS).
   */
  readonly syncRetries: number;
  /** Longest back-off between two sends of an unconfirmed or refused sync op (BIOGATE_SYNC_RETRY_MAX_S). */
  readonly syncRetryMaxS: number;
  /** Attendance and finished commands older than this are pruned; 0 keeps everything. */
  readonly retentionDays: number;
  /** How long the node serving a terminal owns it, renewed by its requests. */
  readonly deviceLeaseS: number;
  /** BIOGATE_QUOTA_PHOTO_MB: a location's photo bytes; punch photos beyond it are not kept. */
  readonly quotaPhotoMb: number;
  /**
   * How long an idle poll trusts the actor's snapshot of device and location and its "nothing
   * pending" hint, and how often a held poll looks at the store: `untrustedMs` while the event feed
   * cannot be trusted to announce every change (MongoDB without its change stream), `trustedMs`
   * while it can (a bound on what a writer that announces nothing costs).
   */
  readonly pollTrust: { readonly untrustedMs: number; readonly trustedMs: number };
}

/** See RuntimeConfig.pollTrust. */
export const DEFAULT_POLL_TRUST = { untrustedMs: 1_000, trustedMs: 30_000 } as const;

/** [PUSH-v3 §4.2] BioGate announces TimeoutSec=10; hold polls 2 s less. v2: no evidence terminals tolerate held polls. */
export const DEFAULT_LONGPOLL_S: Readonly<Record<ProtocolVersion, number>> = byVersion((v) => (v === PROTOCOL_V3 ? 8 : 0));

export function runtimeConfig(config: Config): RuntimeConfig {
  const longpoll = config.longpollS;
  return {
    onlineThresholdS: config.onlineThresholdS,
    longpollS: longpoll === null ? DEFAULT_LONGPOLL_S : byVersion(() => longpoll),
    ackTimeoutS: config.ackTimeoutS,
    batchMaxCommands: config.batchMaxCommands,
    batchMaxBytes: config.batchMaxBytes,
    maxUnassigned: config.maxUnassigned,
    idleEvictS: 600,
    syncRetries: 3,
    syncRetryMaxS: config.syncRetryMaxS,
    retentionDays: config.retentionDays,
    deviceLeaseS: config.deviceLeaseS,
    quotaPhotoMb: config.quotaPhotoMb,
    pollTrust: DEFAULT_POLL_TRUST,
  };
}
