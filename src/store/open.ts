/**
 * Picks the adapter from BIOGATE_STORE. The only module that names adapters;
 * everything else sees the ports of ./types.ts.
 */
import type { Store } from './types.js';

export async function openStore(url: string): Promise<Store> {
  if (url.startsWith('sqlite:')) {
    const { openSqliteStore } = await import('./sqlite/index.js');
    return openSqliteStore(url.slice('sqlite:'.length));
  }
  if (/^mongodb(\+srv)?:\/\//.test(url)) {
    throw new Error('BIOGATE_STORE: the MongoDB adapter is not part of this build yet; use sqlite:<path>');
  }
  throw new Error(`BIOGATE_STORE: unsupported store URL "${url}" (use sqlite:<path> or mongodb://…)`);
}
