/**
 * GET /api/me names the calling token (id, scope, expiry; never its text), so a client such as the
 * console can hide what the token may not do (issue #17). The OpenAPI document describes it.
 */
import t from 'tap';
import { freePort } from '../helpers/app.js';
import { gateway } from './client.js';

t.test('/api/me says which token is calling', async (t) => {
  const g = await gateway(t);
  const full = await g.a.api<{ id: number; token: { id: number; scope: string; expires_at: string | null } }>('GET', '/api/me');
  t.equal(full.status, 200);
  t.match(full.body, { id: g.a.id, token: { scope: 'full', expires_at: null } });
  t.type(full.body.token.id, 'number');

  const issued = await g.started.app.locations.issueToken({ location_id: g.a.id, scope: 'operator', expires_in_days: 7, label: 'desk' });
  const op = await g.a.api<{ token: { id: number; scope: string; expires_at: string | null } }>('GET', '/api/me', { token: issued.token });
  t.same(op.body.token, { id: issued.id, scope: 'operator', expires_at: issued.expires_at }, 'the operator token, with its expiry');
  t.notMatch(JSON.stringify(op.body), issued.token, 'never the token text');

  const doc = await g.a.api<{
    paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    components: { schemas: Record<string, unknown> };
  }>('GET', '/api/openapi.json');
  t.match(JSON.stringify(doc.body.paths['/api/me']?.get.responses['200']), '#/components/schemas/Me', 'documented in OpenAPI: Me');
  t.match(JSON.stringify(doc.body.components.schemas['MeToken']), /"scope"/, 'with the token and its scope');
});

t.test('/api/me says how a terminal reaches this gateway: its device port and whether a comm key is required', async (t) => {
  type Conn = { device_connection: { port: number | null; comm_key_required: boolean } };
  const plain = await gateway(t);
  t.same((await plain.a.api<Conn>('GET', '/api/me')).body.device_connection, { port: null, comm_key_required: false }, 'defaults');
  const strict = await plain.tenant('Strict');
  await plain.started.app.locations.update(strict.id, { require_comm_key: true });
  t.same(
    (await strict.api<Conn>('GET', '/api/me')).body.device_connection,
    { port: null, comm_key_required: true },
    "the location's require_comm_key",
  );

  const devicePort = await freePort();
  const g = await gateway(t, { config: { devicePort, requireCommKey: 'on' } });
  t.same(
    (await g.a.api<Conn>('GET', '/api/me')).body.device_connection,
    { port: devicePort, comm_key_required: true },
    'BIOGATE_DEVICE_PORT and BIOGATE_REQUIRE_COMM_KEY=on',
  );
});
