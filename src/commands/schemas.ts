/** What queueing a command takes (POST /api/commands, POST /api/devices/{sn}/command, the MQTT request topic). */
import { Type, type Static } from 'typebox';

export const CommandBody = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 16 * 1024, description: 'Preset identifier (or, for custom, the raw protocol string)' }),
  priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 0, description: '0 to 100; higher first' })),
  params: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  expires_in: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 30 * 86_400, description: 'Seconds a pending command may wait before it fails as expired' }),
  ),
});

const Sn = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

export const FullCommandBody = Type.Object({ ...CommandBody.properties, sn: Sn });

/** Every terminal of the location, or those of one area (issue #36 item 3). */
export const CommandTarget = Type.Union(
  [
    Type.Object({ all: Type.Literal(true) }, { additionalProperties: false }),
    Type.Object({ area_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }, { additionalProperties: false }),
  ],
  { description: 'Instead of sn: every terminal of the location ({"all": true}) or of one area ({"area_id": n})' },
);
export type CommandTarget = Static<typeof CommandTarget>;

/** POST /api/commands: one terminal (`sn`) or a location-wide `target`, exactly one of them. */
export const ApiCommandBody = Type.Object({
  ...CommandBody.properties,
  sn: Type.Optional({ ...Sn, description: 'The terminal; or give target instead (exactly one of sn and target)' }),
  target: Type.Optional(CommandTarget),
});
