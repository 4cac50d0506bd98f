/** What every `biogate` command writes to, and the store it opens. */
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
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

/** Opens the store named by BIOGATE_STORE (never bootstrapping), runs `fn`, closes it. */
export async function withStore<T>(io: CliIo, fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig({ env: io.env, overrides: { bootstrap: 'off' } });
  const store = await openStore(config.store);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}
