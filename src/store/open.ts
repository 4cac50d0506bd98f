/**
 * Picks the adapter from BIOGATE_STORE. The only module that names adapters;
 * everything else sees the ports of ./types.ts. Adapters load on demand, so a SQLite
 * deployment never loads the MongoDB driver and vice versa.
 */
import type { Store } from './types.js';

export async function openStore(url: string): Promise<Store> {
  if (url.startsWith('sqlite:')) {
    const { openSqliteStore } = await import('./sqlite/index.js');
    return openSqliteStore(url.slice('sqlite:'.length));
  }
  if (/^mongodb(\+srv)?:\/\//.test(url)) {
    const { openMongoStore } = await import('./mongo/index.js');
    return openMongoStore(url);
  }
  throw new Error(`BIOGATE_STORE: unsupported store URL "${url.replace(/\/\/[^@/]*@/, '//***@')}" (use sqlite:<path> or mongodb://…)`);
}
