/**
 * BIOGATE_STORE=mongodb://… parsing. The database is the URL path (default `biogate`); the
 * pool, timeouts, write concern and TLS are the driver's own URL options, e.g.
 *
 *   mongodb://db1,db2,db3/biogate?replicaSet=rs0&maxPoolSize=50&minPoolSize=2&maxIdleTimeMS=60000
 *     &waitQueueTimeoutMS=5000&connectTimeoutMS=5000&socketTimeoutMS=30000&serverSelectionTimeoutMS=5000
 *     &w=majority&wtimeoutMS=5000&appName=biogate-eu1
 *
 * BioGate only adds defaults for options the URL leaves out (an options object would otherwise
 * win over the URL), chosen so an outage is an answer, not a hang (README "MongoDB"):
 * - `serverSelectionTimeoutMS=1000`: with no reachable server an operation fails after 1 s (the
 *   driver's default is 30 s) and the request gets 503 STORE_UNAVAILABLE;
 * - `connectTimeoutMS=2000`: a connection attempt to a host that does not answer gives up;
 * - `socketTimeoutMS=30000`: a server that accepted a request but never answers (hung, or a
 *   silently dropped link) frees the request after 30 s instead of never;
 * - `appName=biogate`;
 * - write concern `w: "majority"` when the URL sets no `w`: an acknowledged punch survives a
 *   failover (with `w: 1` a new primary may roll it back). `w=` in the URL wins.
 */
import type { MongoClientOptions } from 'mongodb';

export const DEFAULT_DATABASE = 'biogate';

export const DEFAULT_OPTIONS = {
  appName: 'biogate',
  serverSelectionTimeoutMS: 1_000,
  connectTimeoutMS: 2_000,
  socketTimeoutMS: 30_000,
} as const satisfies MongoClientOptions;

/** Splits `mongodb[+srv]://[user@]hosts[/db][?query]` without WHATWG URL (it rejects host lists). */
function parts(url: string): { database: string; query: string } {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*(?:\/([^?]*))?(?:\?(.*))?$/.exec(url);
  if (!match) throw new Error(`BIOGATE_STORE: not a MongoDB connection string: "${url.replace(/\/\/[^@/]*@/, '//***@')}"`);
  return { database: decodeURIComponent(match[1] ?? ''), query: match[2] ?? '' };
}

export function databaseName(url: string): string {
  return parts(url).database || DEFAULT_DATABASE;
}

/** Client options that fill in what the URL does not set (URL option names are case-insensitive). */
export function clientOptions(url: string): MongoClientOptions {
  const given = new Set([...new URLSearchParams(parts(url).query).keys()].map((k) => k.toLowerCase()));
  const options: MongoClientOptions = Object.fromEntries(Object.entries(DEFAULT_OPTIONS).filter(([k]) => !given.has(k.toLowerCase())));
  return given.has('w') ? options : { ...options, writeConcern: { w: 'majority' } };
}
