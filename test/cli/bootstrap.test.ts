/**
 * The bootstrap token is never lost [issue #19]: the "Default" location and its
 * token are created only after the port is bound, so a start that fails on a busy
 * port leaves an empty store, and the next good start bootstraps and prints it once.
 */
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/store/open.js';
import { startApp, tempDir } from '../helpers/app.js';

const TOKEN = /bg_[A-Za-z0-9_-]{32}/g;

t.test('a start on a busy port creates no location; the next start bootstraps', async (t) => {
  const first = await startApp(t);
  t.match(first.announced, /BioGate bootstrap: created location "Default"/, 'the first app printed its token');
  t.equal(first.announced.match(TOKEN)?.length, 1);

  const dir = await tempDir(t);
  const storeUrl = `sqlite:${join(dir, 'second.db')}`;
  const build = async (port: number) => {
    const announced: string[] = [];
    const config = loadConfig({ env: {}, overrides: { port, host: '127.0.0.1', store: storeUrl, shutdownGraceS: 2 } });
    const app = await buildApp({ config, logger: createLogger({ level: 'silent' }), announce: (text) => void announced.push(text) });
    return { app, announced };
  };

  const clash = await build(first.port);
  await t.rejects(clash.app.start(), 'the busy port makes start() fail');
  await clash.app.close();
  t.same(clash.announced, [], 'nothing announced');
  const store = await openStore(storeUrl);
  t.equal(await store.locations.count(), 0, 'no location was created');
  await store.close();

  const retry = await build(0);
  t.teardown(() => retry.app.close());
  const started = await retry.app.start();
  t.ok(started.bootstrap, 'the retry bootstraps');
  t.equal(retry.announced.join('\n').match(TOKEN)?.length, 1, 'and prints the token once');
});
