/** What queueing a command takes (POST /api/commands, POST /api/devices/{sn}/command, the MQTT request topic). */
import { Type } from 'typebox';

export const CommandBody = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 16 * 1024, description: 'Preset identifier (or, for custom, the raw protocol string)' }),
  priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 0, description: '0 to 100; higher first' })),
  params: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  expires_in: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 30 * 86_400, description: 'Seconds a pending command may wait before it fails as expired' }),
  ),
});

export const FullCommandBody = Type.Object({
  ...CommandBody.properties,
  sn: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});
