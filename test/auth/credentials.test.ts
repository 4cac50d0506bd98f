// API credentials kept between requests (src/auth/credentials.ts, issue #20), against a real SQLite store:
// what is kept is dropped by a revocation, and a read that was under way when something was forgotten
// is not kept (it may predate the change).
import t, { type Test } from 'tap';
import { createCredentials } from '../../src/auth/credentials.js';
import { generateToken, hashToken } from '../../src/auth/tokens.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

async function setup(t: Test) {
  const store = openSqliteStore(':memory:');
  t.teardown(() => store.close());
  const now = new Date().toISOString();
  const location = await store.locations.create({ name: 'Kept', timezone: 'UTC' }, now);
  const secret = generateToken();
  const token = await store.tokens.create(
    { location_id: location.id, hash: hashToken(secret), scope: 'full', label: null, expires_at: null },
    now,
  );
  const credentials = createCredentials(store, () => 60_000);
  return { store, now, token, header: `Bearer ${secret}`, credentials };
}

t.test('a kept token is used until it is forgotten; revoked, it is refused at once', async (t) => {
  const { store, now, token, header, credentials } = await setup(t);
  t.equal((await credentials.authenticate(header, new Date())).token.id, token.id);
  // Revoked in the store behind the cache's back: the kept answer stands until it is forgotten.
  await store.tokens.revoke(token.id, now);
  t.equal((await credentials.authenticate(header, new Date())).token.id, token.id, 'kept (the feed has not said yet)');
  credentials.forgetToken(token.id);
  await t.rejects(credentials.authenticate(header, new Date()), { code: 'UNAUTHORIZED', message: /revoked/ });
});

t.test('a read under way when the token is forgotten is not kept', async (t) => {
  const { store, now, token, header, credentials } = await setup(t);
  // The read starts (SQLite reads in the call), then the token is revoked and forgotten before it ends.
  const reading = credentials.authenticate(header, new Date());
  await store.tokens.revoke(token.id, now);
  credentials.forgetToken(token.id);
  t.equal((await reading).token.id, token.id, 'the read answers as of when it was made');
  await t.rejects(credentials.authenticate(header, new Date()), { code: 'UNAUTHORIZED', message: /revoked/ }, 'the next call reads again');
});

t.test('forgetAll also voids reads under way', async (t) => {
  const { store, now, token, header, credentials } = await setup(t);
  const reading = credentials.authenticate(header, new Date());
  await store.tokens.revoke(token.id, now);
  credentials.forgetAll();
  await reading;
  await t.rejects(credentials.authenticate(header, new Date()), { message: /revoked/ });
});
