/** Command records → their public view (SERVICE-SPEC CommandResponse), with the status the API shows. */
import { Type } from 'typebox';
import { LOCATION_WIDE_SN, type Command, type CommandStatus, type Location } from '../store/ports/index.js';
import { IsoDateTime, LocationBasic, locationBasic, Nullable } from './common.js';

/** The `result` of a location-wide command (issue #36 item 3; src/devices/wide-result.ts keeps it). */
export interface WideTargets {
  readonly queued: number;
  readonly success: number;
  readonly failed: number;
  readonly unsupported: number;
}

export interface WideResult {
  readonly targets: WideTargets;
  readonly children: readonly number[];
  readonly refused: readonly { readonly sn: string; readonly reason: string }[];
  /** Set while the fan-out is still queueing children: nothing settles the command meanwhile. */
  readonly fanning?: true;
}

export function isWideResult(v: unknown): v is WideResult {
  return v !== null && typeof v === 'object' && 'targets' in v && 'children' in v && Array.isArray((v as WideResult).children);
}

export const CommandStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('sent'),
  Type.Literal('success'),
  Type.Literal('failed'),
]);

export const CommandView = Type.Object(
  {
    id: Type.Integer(),
    command: Type.String({ description: 'Preset identifier' }),
    priority: Type.Integer(),
    location_id: Nullable(Type.Integer()),
    location: Nullable(LocationBasic),
    sn: Nullable(Type.String({ description: 'The terminal; null for a location-wide command (see targets)' })),
    status: CommandStatusSchema,
    response: Nullable(Type.String()),
    error_message: Nullable(Type.String()),
    sent_at: Nullable(IsoDateTime),
    acknowledged_at: Nullable(IsoDateTime),
    is_active: Type.Boolean({ description: 'True while the command is pending or sent' }),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
    params: Nullable(Type.Record(Type.String(), Type.Unknown())),
    result: Type.Unknown({
      description: 'Data a finished command returned (info: options; load-users: users; check-attendance: counts); else null',
    }),
    expires_at: Nullable(IsoDateTime),
    created_by_token_id: Nullable(Type.Integer()),
    targets: Type.Optional(
      Type.Object(
        { queued: Type.Integer(), success: Type.Integer(), failed: Type.Integer(), unsupported: Type.Integer() },
        {
          description:
            'Only on a location-wide command: children queued, succeeded and failed so far (failed includes terminals whose mailbox was full), and terminals whose protocol cannot carry the preset',
        },
      ),
    ),
    children: Type.Optional(Type.Array(Type.Integer(), { description: "Only on a location-wide command: its children's ids" })),
  },
  { title: 'CommandResponse' },
);

/**
 * The status the API and the events show. A command that was delivered and is queued again in its
 * fallback form [COMMANDS §2.5] (origin api/system, attempts > 0) is still `sent`: the terminal has
 * it in hand. Re-queued background sync ops show `pending` again, as documented.
 */
export function publicStatus(c: Pick<Command, 'status' | 'origin' | 'attempts'>): CommandStatus {
  return c.status === 'pending' && c.origin !== 'sync' && c.attempts > 0 ? 'sent' : c.status;
}

export function commandView(c: Command, location: Location | null) {
  const wide = c.sn === LOCATION_WIDE_SN && isWideResult(c.result) ? c.result : null;
  return {
    id: c.id,
    command: c.command,
    priority: Math.max(0, c.priority),
    location_id: c.location_id,
    location: location ? locationBasic(location) : null,
    sn: c.sn === LOCATION_WIDE_SN ? null : c.sn,
    status: publicStatus(c),
    response: c.response,
    error_message: c.error_message,
    sent_at: c.sent_at,
    acknowledged_at: c.acknowledged_at,
    is_active: c.status === 'pending' || c.status === 'sent',
    created_at: c.created_at,
    updated_at: c.updated_at,
    params: c.params,
    result: c.result ?? null,
    expires_at: c.expires_at,
    created_by_token_id: c.created_by_token_id,
    ...(wide ? { targets: wide.targets, children: [...wide.children] } : {}),
  };
}
