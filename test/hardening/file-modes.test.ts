// Issue #32 item 18: a new SQLite store (with its -wal and -shm) and every backup hold webhook
// secrets, cards and keypad passwords: they are created readable by their owner only (0600),
// whatever the umask allows; a restored store too.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { cli } from '../helpers/cli.js';
import { startApp, tempDir } from '../helpers/app.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

t.test('a new SQLite store, its -wal and -shm, a backup and a restored store are 0600', async (t) => {
  const previous = process.umask(0o022); // the usual umask: files would be 0644
  t.teardown(() => void process.umask(previous));
  const dir = await tempDir(t);
  const file = join(dir, 'biogate.db');
  const app = await startApp(t, { storePath: file });
  t.equal(mode(file), '600', 'the store');
  t.equal(mode(`${file}-wal`), '600', 'its -wal');
  t.equal(mode(`${file}-shm`), '600', 'its -shm');
  const out = join(dir, 'backup.db');
  const backup = await cli(['backup', '--out', out], { BIOGATE_STORE: `sqlite:${file}` });
  t.equal(backup.code, 0, backup.stderr);
  t.equal(mode(out), '600', 'the backup');
  await app.close();
  const target = join(dir, 'restored.db');
  const restore = await cli(['restore', '--in', out], { BIOGATE_STORE: `sqlite:${target}` });
  t.equal(restore.code, 0, restore.stderr);
  t.equal(mode(target), '600', 'the restored store');
});
