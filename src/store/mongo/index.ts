/**
 * The production store: MongoDB through the official driver (7.x), selected by
 * BIOGATE_STORE=mongodb://… or mongodb+srv://… (connection options: see connect.ts).
 *
 * No multi-document transactions (standalone servers and MongoDB-compatible engines lack them):
 * every port method is one atomic single-document write or an idempotent sequence of them whose
 * order is chosen so that a crash leaves nothing half-done (comments at each such method).
 * No change streams. Indexes and id counters are created at startup, idempotently.
 */
import { MongoClient } from 'mongodb';
import type { Store } from '../types.js';
import { mongoAttendance } from './attendance.js';
import { mongoCommands } from './commands.js';
import { clientOptions, databaseName } from './connect.js';
import { mongoDevices } from './devices.js';
import { ensureCounters, idAllocator } from './ids.js';
import { mongoLocations, mongoTokens } from './locations.js';
import { collections, COUNTERS, ensureIndexes } from './schema.js';
import { mongoTemplates } from './templates.js';
import { mongoUsers } from './users.js';

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
  let closed = false;
  return {
    kind: 'mongodb',
    locations: mongoLocations(c, ids),
    tokens: mongoTokens(c, ids),
    users: mongoUsers(c, ids),
    templates: mongoTemplates(c, ids),
    devices: mongoDevices(c, ids),
    commands: mongoCommands(c, ids),
    attendance: mongoAttendance(c, ids),
    async ping() {
      if (closed) throw new Error('store is closed');
      await db.command({ ping: 1 });
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}
