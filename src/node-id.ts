/**
 * This node's name in a cluster (BIOGATE_NODE_ID): device and job leases, the `node` label of
 * every metric, event origins. Computed here only, so every part of one process agrees on it.
 */
import { hostname } from 'node:os';
import type { Config } from './config/schema.js';

/** Characters BIOGATE_NODE_ID allows (src/config/schema.ts); anything else in a host name becomes `-`. */
const NOT_ALLOWED = /[^A-Za-z0-9._-]/g;
const MAX_LENGTH = 64;

/**
 * The configured node id, or `<hostname>-<pid>`: unique among processes of one host, and new on
 * every start (a restarted node does not inherit the leases of its previous life).
 */
export function resolveNodeId(config: Pick<Config, 'nodeId'>): string {
  if (config.nodeId !== null) return config.nodeId;
  const suffix = `-${process.pid}`;
  const host =
    hostname()
      .replace(NOT_ALLOWED, '-')
      .slice(0, MAX_LENGTH - suffix.length) || 'node';
  return `${host}${suffix}`;
}

/**
 * The name a CLI process writes into the events it adds to the feed: never a gateway's (even with
 * BIOGATE_NODE_ID set for both), so every gateway takes its signals as another node's.
 */
export function cliNodeId(): string {
  const prefix = 'cli-';
  const suffix = `-${process.pid}`;
  return `${prefix}${hostname()
    .replace(NOT_ALLOWED, '-')
    .slice(0, MAX_LENGTH - prefix.length - suffix.length)}${suffix}`;
}
