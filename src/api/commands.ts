/** /api/commands: queue, read, list, cancel (SERVICE-SPEC "Endpoints" + API-CONTRACT §5 Commands). */
import { Type, type Static } from 'typebox';
import type { Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import type { CommandQueue } from '../devices/command-queue.js';
import type { CommandLifecycle } from '../devices/lifecycle.js';
import { BioGateError, invalid } from '../errors.js';
import type { HttpRequest } from '../http/types.js';
import type { Store } from '../store/types.js';
import type { CommandStatus } from '../store/ports/index.js';
import { cancelCommand } from '../commands/cancel.js';
import { queueCommand } from '../commands/queue.js';
import { queueLocationWide } from '../commands/fan-out.js';
import { ApiCommandBody, type CommandBody } from '../commands/schemas.js';
import { instantOf } from '../validation/input.js';
import { CommandStatusSchema, commandView, CommandView } from '../views/command.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { DateTimeText, PageQuery, pageOf, pageWrapper } from './schemas.js';

const IdParam = Type.Object({ command_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

function idempotencyKeyOf(req: HttpRequest): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
    throw invalid(['header', 'Idempotency-Key'], 'must be 1 to 128 visible ASCII characters', 'format');
  return key;
}

/** Queues a command from a REST request (with its Idempotency-Key header) and answers 201 with its view. */
export async function queueFromRequest(
  queue: CommandQueue,
  caller: Caller,
  sn: string,
  body: Static<typeof CommandBody>,
  req: HttpRequest,
) {
  return json(201, commandView(await queueCommand(queue, caller, sn, body, idempotencyKeyOf(req)), caller.location));
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
      method: 'POST',
      path: '/api/commands',
      auth: 'location',
      body: ApiCommandBody,
      doc: {
        summary: 'Queue a preset command for a terminal (sn), or for every terminal of the location or of an area (target)',
        description:
          'Exactly one of `sn` and `target`. With `target` the answer is a parent command whose `sn` is null, with `targets` {queued, success, failed, unsupported} and `children` (one command per terminal that supports the preset, each queued as if sent alone); it is `success` only when every child succeeded. sync-users takes an sn. Honours an Idempotency-Key header.',
        tags,
        responses: { 201: CommandView },
        errors,
      },
      handler: async ({ caller, body, req }) => {
        const { sn, target, ...command } = body;
        if ((sn === undefined) === (target === undefined))
          throw invalid(['body', 'sn'], 'give exactly one of sn and target', 'value_error');
        if (sn !== undefined) return queueFromRequest(deps.commands, caller, sn, command, req);
        const fanOut = { store, queue: deps.commands, lifecycle: deps.lifecycle, now: () => deps.clock.now() };
        const parent = await queueLocationWide(fanOut, caller, target as NonNullable<typeof target>, command, idempotencyKeyOf(req));
        return json(201, commandView(parent, caller.location));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/commands',
      auth: 'location',
      query: Type.Object({
        ...PageQuery,
        sn: Type.Optional(Type.String({ maxLength: 64 })),
        status: Type.Optional(CommandStatusSchema),
        command: Type.Optional(Type.String({ maxLength: 64 })),
        since: Type.Optional(DateTimeText('RFC 3339 date-time (e.g. 2026-03-01T08:00:00Z); commands created at or after it')),
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
        return json(
          200,
          pageWrapper(
            page.items.map((c) => commandView(c, caller.location)),
            page.total,
            query.page,
            query.limit,
          ),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/commands/{command_id}',
      auth: 'location',
      params: IdParam,
      doc: { summary: 'Command status and details', tags, responses: { 200: CommandView }, errors: ['COMMAND_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        const c = await store.commands.get(caller.location.id, params.command_id);
        if (!c) throw new BioGateError('COMMAND_NOT_FOUND', `Command ${params.command_id} not found`);
        return json(200, commandView(c, caller.location));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/commands/{command_id}',
      auth: 'location',
      params: IdParam,
      doc: {
        summary: 'Cancel a pending command',
        tags,
        responses: { 200: CommandView },
        errors: ['COMMAND_NOT_FOUND', 'COMMAND_ALREADY_SENT'],
      },
      handler: async ({ caller, params }) => {
        const done = await cancelCommand(store, deps.lifecycle, caller.location, params.command_id);
        return json(200, commandView(done, caller.location));
      },
    }),
  ];
}
