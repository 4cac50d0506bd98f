/**
 * The production store: MongoDB through the official driver (7.x), selected by
 * BIOGATE_STORE=mongodb://… or mongodb+srv://… (connection options: see connect.ts).
 *
 * No multi-document transactions (standalone servers and MongoDB-compatible engines lack them):
 * every port method is one atomic single-document write or an idempotent sequence of them whose
 * order is chosen so that a crash leaves nothing half-done (comments at each such method).
 * Change streams only for the cluster event feed (cluster.ts). Indexes and id counters are created at startup, idempotently.
 *
 * Outages: `isMongoUnavailable` tells src/store/open.ts which driver errors mean "the
 * database cannot be reached" (mapped there to 503 STORE_UNAVAILABLE for every port method), and
 * `ping()` answers from the driver's topology view at once while no server is reachable.
 */
import { mongoAccessLevels, mongoHolidays, mongoSchedules } from './access.js';
import { mongoAreas } from './areas.js';
import { MongoClient } from 'mongodb';
import type { Store } from '../types.js';
import { mongoAttendance } from './attendance.js';
import { mongoCluster } from './cluster.js';
import { mongoCommands } from './commands.js';
import { clientOptions, databaseName } from './connect.js';
import { mongoExchanges } from './exchanges.js';
import { mongoDeviceRecords } from './device-records.js';
import { mongoDevices } from './devices.js';
import { mongoDoorEvents } from './door-events.js';
import { ensureCounters, idAllocator } from './ids.js';
import { mongoLocations, mongoTokens } from './locations.js';
import { collections, COUNTERS, ensureIndexes } from './schema.js';
import { mongoPhotos } from './photos.js';
import { mongoTemplates } from './templates.js';
import { mongoUsers } from './users.js';
import { locationCounts } from './location-counts.js';
import { mongoJobs, mongoSyncOutbox } from './sync-state.js';
import { mongoTerminalSync } from './terminal-sync.js';
import { MongoUnreachableError, trackReachability } from './unavailable.js';
import { mongoWebhooks } from './webhooks.js';
import { mongoAuditLog } from './audit-log.js';
import { mongoAlerts } from './alerts.js';
import { mongoOrgNames } from './org-names.js';
import { mongoSecrets } from './secrets.js';

export { isMongoUnavailable } from './unavailable.js';

/** How long a readiness ping may take while the server is believed reachable. */
const PING_TIMEOUT_MS = 1_000;

export async function openMongoStore(url: string): Promise<Store> {
  const client = new MongoClient(url, clientOptions(url));
  const db = client.db(databaseName(url));
  const c = collections(db);
  // Connect, then the schema; a failure closes the client so nothing keeps the process alive.
  await client
    .connect()
    .then(() => ensureIndexes(c))
    .then(() => ensureCounters(c.counters, COUNTERS))
    .catch(async (e: unknown) => {
      await client.close();
      throw e;
    });
  const ids = idAllocator(c.counters);
  const counts = locationCounts(db);
  const cluster = await mongoCluster(db).catch(async (e: unknown) => {
    await client.close();
    throw e;
  });
  const webhooks = await mongoWebhooks(db, ids).catch(async (e: unknown) => {
    await client.close();
    throw e;
  });
  const auditLog = await mongoAuditLog(db, ids).catch(async (e: unknown) => {
    await client.close();
    throw e;
  });
  const alerts = await mongoAlerts(db, ids).catch(async (e: unknown) => {
    await client.close();
    throw e;
  });
  const photos = await mongoPhotos(db).catch(async (e: unknown) => {
    await client.close();
    throw e;
  });
  const reach = trackReachability(client);
  /** One background ping at a time while down: server selection makes the driver re-check at once. */
  let probing: Promise<unknown> | undefined;
  /** Set by the first close(); a later call waits for the same close. */
  let closing: Promise<void> | undefined;
  return {
    kind: 'mongodb',
    locations: mongoLocations(c, ids, counts),
    tokens: mongoTokens(c, ids),
    users: mongoUsers(c, ids, counts),
    areas: mongoAreas(c, ids),
    schedules: mongoSchedules(c),
    accessLevels: mongoAccessLevels(c, ids),
    holidays: mongoHolidays(c, ids),
    templates: mongoTemplates(c, ids),
    photos,
    devices: mongoDevices(c, ids, counts),
    commands: mongoCommands(c, ids),
    attendance: mongoAttendance(c, ids),
    deviceRecords: mongoDeviceRecords(c, ids),
    exchanges: mongoExchanges(c),
    doorEvents: mongoDoorEvents(c, ids),
    syncOutbox: mongoSyncOutbox(c),
    terminalSync: mongoTerminalSync(c),
    jobs: mongoJobs(c),
    cluster,
    webhooks,
    auditLog,
    alerts,
    orgNames: mongoOrgNames(c, ids),
    secrets: mongoSecrets(c),
    unitOfWork: (fn) => fn(),
    atomic: (fn) => fn(),
    isolated: () => false,
    async ping() {
      if (closing) throw new Error('store is closed');
      if (!reach.isUp) {
        // Unready at once; the probe lets the driver notice the server is back.
        probing ??= db
          .command({ ping: 1 })
          .catch(() => undefined)
          .finally(() => (probing = undefined));
        throw new MongoUnreachableError();
      }
      await db.command({ ping: 1 }, { timeoutMS: PING_TIMEOUT_MS });
    },
    close() {
      return (closing ??= (async () => {
        reach.stop();
        await client.close();
      })());
    },
  };
}
