/** /api/commands: queue, read, list, cancel (SERVICE-SPEC "Endpoints" + API-CONTRACT §5 Commands). */
import { Type, type Static } from 'typebox';
import type { Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import type { CommandQueue } from '../devices/command-queue.js';
import { publicStatus, type CommandLifecycle } from '../devices/lifecycle.js';
import { BioGateError, invalid } from '../errors.js';
import type { HttpRequest } from '../http/types.js';
import type { CommandStatus, Store } from '../store/types.js';
import { commandView, CommandView } from './device-views.js';
import { instantOf } from './input.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { PageQuery, pageOf, pageWrapper } from './schemas.js';

export const CommandBody = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 16 * 1024, description: 'Preset identifier (or, for custom, the raw protocol string)' }),
  priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 0, description: '0 to 100; higher first' })),
  params: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  expires_in: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 86_400, description: 'Seconds a pending command may wait before it fails as expired' })),
});
export const FullCommandBody = Type.Object({ ...CommandBody.properties, sn: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });
const IdParam = Type.Object({ command_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
const Status = Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('success'), Type.Literal('failed')]);
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

export async function queueFromRequest(queue: CommandQueue, caller: Caller, sn: string, body: Static<typeof CommandBody>, req: HttpRequest) {
  const key = req.headers['idempotency-key'];
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw invalid(['header', 'Idempotency-Key'], 'must be 1 to 128 visible ASCII characters', 'format');
  return json(201, await queueCommand(queue, caller, sn, body, key));
}

/**
 * Queues a validated command body for a caller and returns its CommandResponse: the one path
 * behind POST /api/commands, POST /api/devices/{sn}/commands and the MQTT request topic
 * (src/bridge/mqtt/requests.ts). `token` null = the admin, who acts for any location.
 */
export async function queueCommand(
  queue: CommandQueue, caller: Pick<Caller, 'location'> & { readonly token: Caller['token'] | null }, sn: string, body: Static<typeof CommandBody>, idempotencyKey?: string,
) {
  const { command } = await queue.queue({
    location: caller.location, token: caller.token, sn, command: body.command, priority: body.priority ?? 0,
    params: body.params ?? null, expires_in: body.expires_in, idempotencyKey, root: ['body'],
  });
  return commandView(command, caller.location);
}

function sinceInstant(v: string): string {
  const d = instantOf(v);
  if (!d) throw invalid(['query', 'since'], 'must be a real datetime', 'format');
  return d.toISOString();
}

export interface CommandsDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly commands: CommandQueue;
  readonly lifecycle: CommandLifecycle;
}

export function commandRoutes(deps: CommandsDeps): ApiRoute[] {
  const { store } = deps;
  const tags = ['commands'];
  const errors = ['DEVICE_NOT_FOUND', 'COMMAND_NOT_SUPPORTED', 'MAILBOX_FULL', 'SCOPE_DENIED', 'IDEMPOTENCY_KEY_REUSED'];
  return [
    defineRoute({
      method: 'POST', path: '/api/commands', auth: 'location', body: FullCommandBody,
      doc: { summary: 'Queue a preset command', description: 'Honours an Idempotency-Key header.', tags, responses: { 201: CommandView }, errors },
      handler: async ({ caller, body, req }) => queueFromRequest(deps.commands, caller, body.sn, body, req),
    }),
    defineRoute({
      method: 'GET', path: '/api/commands', auth: 'location',
      query: Type.Object({
        ...PageQuery,
        sn: Type.Optional(Type.String({ maxLength: 64 })),
        status: Type.Optional(Status),
        command: Type.Optional(Type.String({ maxLength: 64 })),
        since: Type.Optional(Type.String({ format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$', description: 'ISO datetime; commands created at or after it' })),
      }),
      doc: { summary: "The location's commands, newest first", tags, responses: { 200: pageOf(CommandView) } },
      handler: async ({ caller, query }) => {
        const filter = {
          ...(query.sn ? { sn: query.sn } : {}),
          ...(query.status ? { status: query.status as CommandStatus } : {}),
          ...(query.command ? { command: query.command === 'restart' ? 'reboot' : query.command } : {}),
          ...(query.since ? { since: sinceInstant(query.since) } : {}),
        };
        const page = await store.commands.list(caller.location.id, filter, { offset: (query.page - 1) * query.limit, limit: query.limit });
        return json(200, pageWrapper(page.items.map((c) => commandView(c, caller.location)), page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/commands/{command_id}', auth: 'location', params: IdParam,
      doc: { summary: 'Command status and details', tags, responses: { 200: CommandView }, errors: ['COMMAND_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        const c = await store.commands.get(caller.location.id, params.command_id);
        if (!c) throw new BioGateError('COMMAND_NOT_FOUND', `Command ${params.command_id} not found`);
        return json(200, commandView(c, caller.location));
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/api/commands/{command_id}', auth: 'location', params: IdParam,
      doc: { summary: 'Cancel a pending command', tags, responses: { 200: CommandView }, errors: ['COMMAND_NOT_FOUND', 'COMMAND_ALREADY_SENT'] },
      handler: async ({ caller, params }) => {
        const c = await store.commands.get(caller.location.id, params.command_id);
        if (!c) throw new BioGateError('COMMAND_NOT_FOUND', `Command ${params.command_id} not found`);
        const status = publicStatus(c);
        if (status !== 'pending') throw new BioGateError('COMMAND_ALREADY_SENT', `Command ${c.id} is ${status} and can no longer be cancelled`);
        // Atomic against a poll claiming it at the same moment: only a still-pending command is cancelled.
        const done = await deps.lifecycle.cancel(c);
        if (!done) throw new BioGateError('COMMAND_ALREADY_SENT', `Command ${c.id} left the queue meanwhile`);
        return json(200, commandView(done, caller.location));
      },
    }),
  ];
}
