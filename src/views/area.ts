/** Area records → their public view (issue #33 item 1): GET /api/areas, the feed's `area.changed`. */
import { Type } from 'typebox';
import type { CountedArea } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const AREA_NAME = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\t\\r\\n\\u0000]*\\S[^\\t\\r\\n\\u0000]*$',
  description: 'Area name; no tabs or line breaks',
});

export const AreaView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    devices_count: Type.Integer({ description: 'Terminals in the area' }),
    users_count: Type.Integer({ description: 'Users listing the area' }),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
  },
  { title: 'Area' },
);

/** A terminal's area as DeviceResponse shows it. */
export const AreaBasic = Type.Object({ id: Type.Integer(), name: Type.String() }, { title: 'AreaBasic' });

export const areaView = (a: CountedArea) => ({
  id: a.id,
  name: a.name,
  devices_count: a.devices_count,
  users_count: a.users_count,
  created_at: a.created_at,
  updated_at: a.updated_at,
});
