/** Command records → their public view (SERVICE-SPEC CommandResponse), with the status the API shows. */
import { Type } from 'typebox';
import type { Command, CommandStatus, Location } from '../store/ports/index.js';
import { IsoDateTime, LocationBasic, locationBasic, Nullable } from './common.js';

export const CommandStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('sent'),
  Type.Literal('success'),
  Type.Literal('failed'),
]);

export const CommandView = Type.Object({
  id: Type.Integer(),
  command: Type.String({ description: 'Preset identifier' }),
  priority: Type.Integer(),
  location_id: Nullable(Type.Integer()),
  location: Nullable(LocationBasic),
  sn: Nullable(Type.String()),
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
});

/**
 * The status the API and the events show. A command that was delivered and is queued again in its
 * fallback form [COMMANDS §2.5] (origin api/system, attempts > 0) is still `sent`: the terminal has
 * it in hand. Re-queued background sync ops show `pending` again, as documented.
 */
export function publicStatus(c: Pick<Command, 'status' | 'origin' | 'attempts'>): CommandStatus {
  return c.status === 'pending' && c.origin !== 'sync' && c.attempts > 0 ? 'sent' : c.status;
}

export function commandView(c: Command, location: Location | null) {
  return {
    id: c.id,
    command: c.command,
    priority: Math.max(0, c.priority),
    location_id: c.location_id,
    location: location ? locationBasic(location) : null,
    sn: c.sn,
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
  };
}
