/** What every `biogate` command writes to, and the store it opens. */
import { actingAs, actor } from '../audit-log/actor.js';
import { announceAudit } from '../audit-log/announce.js';
import { withAuditLog } from '../audit-log/store.js';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { EventBus } from '../events/bus.js';
import { ClusterFeed } from '../events/feed.js';
import { createLogger } from '../log.js';
import { cliNodeId } from '../node-id.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  readonly isTTY: boolean;
}

export const print = (io: CliIo, text: string) => io.stdout.write(text.endsWith('\n') ? text : text + '\n');
export const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Writes to stdout, waiting for the pipe to drain when it is full (exports of any size stream in bounded memory). */
export async function writeOut(io: CliIo, text: string): Promise<void> {
  if (!io.stdout.write(text)) await new Promise<void>((resolve) => io.stdout.once('drain', resolve));
}

/**
 * How a command tells the running gateways what it changed: through the store's event feed, as a
 * gateway node would. Webhooks, MQTT and WebSocket clients get the events of what the CLI
 * did, and the gateways drop what they hold in memory of it (a terminal's held poll wakes for a
 * command queued here, a poll sees a location disabled here).
 */
export interface Announcer {
  /** Events emitted on it are in the feed before the command ends. */
  readonly bus: EventBus;
  /** A location was updated: the gateways re-read it. */
  locationChanged(id: number): void;
  /** A token was revoked: no gateway accepts it from now on. */
  tokenRevoked(id: number): void;
}

/**
 * Opens the store named by BIOGATE_STORE (never bootstrapping), runs `fn`, stores what it announced
 * in the event feed, closes the store.
 */
export async function withStore<T>(io: CliIo, fn: (store: Store, config: Config, announce: Announcer) => Promise<T>): Promise<T> {
  const config = loadConfig({ env: io.env, overrides: { bootstrap: 'off' } });
  // What the command changes is recorded in the audit log as the CLI's (src/audit-log/).
  const store = withAuditLog(await openStore(config.store), systemClock);
  const bus = new EventBus();
  const log = createLogger({ level: 'warn', destination: io.stderr, isTTY: io.isTTY });
  const feed = new ClusterFeed({
    store,
    bus,
    log,
    node: cliNodeId(),
    now: () => new Date(),
    onlineThresholdS: config.onlineThresholdS,
    follow: false,
  });
  const signals: Promise<void>[] = [];
  const tell = (what: Promise<void>, about: Record<string, number>) =>
    void signals.push(what.catch((err: unknown) => log.warn({ err, ...about }, 'could not tell the gateways of this change')));
  try {
    await feed.start();
    const who = actor('cli', { label: io.env['USER'] ?? io.env['LOGNAME'] ?? null });
    return await actingAs(
      who,
      (entries) => announceAudit(bus, entries),
      () =>
        fn(store, config, {
          bus,
          locationChanged: (id) => tell(feed.signal('location.changed', { id }), { location_id: id }),
          tokenRevoked: (id) => tell(feed.signal('token.revoked', { id }), { token_id: id }),
        }),
    );
  } finally {
    await Promise.all(signals);
    await feed.stop();
    await store.close();
  }
}
