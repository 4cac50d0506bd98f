/**
 * Store ports: what BioGate needs from persistence, nothing about how.
 *
 * Rules every adapter follows (test/contract/ checks them):
 * - ids are positive integers, unique per collection across locations, never reused;
 * - every read or write of tenant data names its location (a cluster can shard by it);
 * - no operation needs a multi-document transaction: each is one atomic write, or
 *   an idempotent sequence that is safe to repeat after a crash;
 * - timestamps are ISO 8601 strings in UTC with milliseconds (`2026-11-21T09:30:00.000Z`),
 *   so they order as strings.
 */
import type {
  AttendancePort,
  AuditLogPort,
  AlertsPort,
  ClusterPort,
  CommandsPort,
  DeviceRecordsPort,
  ExchangesPort,
  DevicesPort,
  DoorEventsPort,
  JobsPort,
  LocationsPort,
  SyncOutboxPort,
  TerminalSyncPort,
  TemplatesPort,
  PhotosPort,
  TokensPort,
  UsersPort,
  AreasPort,
  SchedulesPort,
  AccessLevelsPort,
  HolidaysPort,
  WebhooksPort,
  OrgNamesPort,
  SecretsPort,
} from './ports/index.js';

export interface Store {
  readonly kind: 'sqlite' | 'mongodb';
  readonly locations: LocationsPort;
  readonly tokens: TokensPort;
  readonly users: UsersPort;
  readonly areas: AreasPort;
  readonly schedules: SchedulesPort;
  readonly accessLevels: AccessLevelsPort;
  readonly holidays: HolidaysPort;
  readonly templates: TemplatesPort;
  /** Photo bytes (user photos, punch photos), outside the main tables. */
  readonly photos: PhotosPort;
  readonly devices: DevicesPort;
  readonly commands: CommandsPort;
  readonly attendance: AttendancePort;
  readonly deviceRecords: DeviceRecordsPort;
  /** The last exchanges of each terminal (issue #36 item 2). */
  readonly exchanges: ExchangesPort;
  readonly doorEvents: DoorEventsPort;
  readonly syncOutbox: SyncOutboxPort;
  /** Per-terminal roster sync state (src/sync/terminal-state.ts). */
  readonly terminalSync: TerminalSyncPort;
  readonly jobs: JobsPort;
  readonly cluster: ClusterPort;
  readonly webhooks: WebhooksPort;
  /** Who changed what (issue #36 item 1), written by src/audit-log/. */
  readonly auditLog: AuditLogPort;
  /** Alert rules and their open incidents (issue #36 item 4). */
  readonly alerts: AlertsPort;
  /** Department and position names per location, made as users name them. */
  readonly orgNames: OrgNamesPort;
  /** Values the gateway makes for itself once and keeps (src/store/ports/secrets.ts). */
  readonly secrets: SecretsPort;
  /**
   * Runs `fn`, letting its store calls share one commit where that is cheaper: a reply's
   * 50 command results are 300 small writes. SQLite: one transaction around `fn` (BEGIN IMMEDIATE …
   * COMMIT; nested `transaction()`s become savepoints), committed when `fn` settles, even when it
   * throws: no atomicity is promised, only fewer commits. `fn` must await nothing but the store;
   * should it wait for anything else, what it wrote so far is committed at the end of that turn of
   * the event loop and the rest commits call by call. MongoDB: runs `fn` (each write is its own).
   * Resolves after the commit, so a reply sent then is durable.
   */
  unitOfWork<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Like `unitOfWork`, and when `fn` throws, what it wrote is undone. SQLite: rolled back, as long as `fn` awaited
   * nothing but the store (after such a wait what it wrote so far is committed, as with `unitOfWork`); inside an
   * open transaction, part of that one. MongoDB (no multi-document transactions): runs `fn`, so its writes stand
   * each alone; callers order them so that a failure leaves nothing false (the audit log: the change, then its entry).
   */
  atomic<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Whether the unit of work running now still has the store to itself, so that nothing written
   * since it began came from anyone else. SQLite: while the unit's transaction is open (BEGIN
   * IMMEDIATE holds the write lock against other processes, and this process ran nothing else in
   * between, or the unit would have committed). MongoDB: never. A reader that re-checks what it read
   * against concurrent writers may skip that re-check when this is true.
   */
  isolated(): boolean;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
