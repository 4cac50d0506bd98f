/**
 * User and template records → their public views (SERVICE-SPEC UserResponse, BiometricTemplateResponse); template bytes never leave here.
 * The keypad `password` is a secret a `read` token has no use for: its audience `masked` gets null in its place.
 */
import { Type } from 'typebox';
import type { Store } from '../store/types.js';
import type { Location, Template, User, UserPhoto } from '../store/ports/index.js';
import { IsoDateTime, LocationBasic, locationBasic, Nullable } from './common.js';

export const TemplateView = Type.Object(
  {
    id: Type.Integer(),
    user_pin: Type.Integer(),
    bio_type: Type.Union([Type.Literal('fingerprint'), Type.Literal('face'), Type.Literal('palm'), Type.Literal('other')]),
    finger_id: Type.Integer(),
    valid: Type.Integer(),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
    type_index: Type.Integer({ description: 'Biometric type on the wire: 1 fingerprint, 2/9 face, 6/8 palm, …' }),
    template_index: Type.Integer(),
    major_ver: Type.Integer(),
    minor_ver: Type.Integer(),
    format: Type.Integer(),
    size: Type.Integer({ description: 'Template size in characters of base64' }),
    source_sn: Nullable(Type.String()),
  },
  { title: 'BiometricTemplateResponse' },
);

/** A user's photo record (issue #35 item 4); the JPEG itself is at `url` (full scope). */
export const UserPhotoView = Type.Object(
  {
    url: Type.String({ description: 'GET it (full scope) for the JPEG' }),
    size: Type.Integer({ description: 'Bytes of the stored JPEG' }),
    width: Type.Integer(),
    height: Type.Integer(),
    updated_at: IsoDateTime,
  },
  { title: 'UserPhoto' },
);

export const userPhotoView = (pin: number, p: UserPhoto) => ({
  url: `/api/users/${pin}/photo`,
  size: p.size,
  width: p.width,
  height: p.height,
  updated_at: p.updated_at,
});

export const UserView = Type.Object(
  {
    id: Type.Integer(),
    location_id: Type.Integer(),
    location: Nullable(LocationBasic),
    pin: Type.Integer(),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    card_no: Nullable(Type.String()),
    password: Nullable(Type.Integer({ description: 'Keypad password; null when none, and always null for a read token' })),
    is_active: Type.Boolean(),
    start_time: Nullable(Type.String()),
    end_time: Nullable(Type.String()),
    privilege: Type.Integer(),
    group: Type.Integer(),
    super_authorize: Type.Integer(),
    areas: Type.Array(Type.Integer(), {
      description: 'Ids of the areas whose terminals hold the user, ascending; terminals without an area hold every active user',
    }),
    access_levels: Type.Array(Type.Integer(), {
      description: 'Ids of the access levels of the user, ascending; [] = schedule 1 through every door',
    }),
    photo: Nullable(UserPhotoView),
    has_biometric: Type.Boolean(),
    biometric_templates: Nullable(Type.Array(TemplateView)),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
    department: Nullable(Type.String({ description: 'Department; kept by BioGate, never sent to a terminal' })),
    position: Nullable(Type.String({ description: 'Position (job title); kept by BioGate, never sent to a terminal' })),
  },
  { title: 'UserResponse' },
);

/** Who sees a user: `full` (operator and full tokens, who may set the password) or `masked` (read: no password). */
export type UserAudience = 'full' | 'masked';

export const userAudienceOf = (scope: string): UserAudience => (scope === 'read' ? 'masked' : 'full');

export function templateView(t: Template) {
  return {
    id: t.id,
    user_pin: t.user_pin,
    bio_type: t.bio_type,
    finger_id: t.finger_id,
    valid: t.valid,
    created_at: t.created_at,
    updated_at: t.updated_at,
    type_index: t.type_index,
    template_index: t.template_index,
    major_ver: t.major_ver,
    minor_ver: t.minor_ver,
    format: t.format,
    size: t.size,
    source_sn: t.source_sn,
  };
}

export function userView(
  u: User,
  location: Location,
  hasBiometric: boolean,
  templates: readonly Template[] | null,
  audience: UserAudience,
) {
  return {
    id: u.id,
    location_id: u.location_id,
    location: locationBasic(location),
    pin: u.pin,
    first_name: u.first_name,
    last_name: u.last_name,
    card_no: u.card_no,
    password: audience === 'full' ? u.password : null,
    is_active: u.is_active,
    start_time: u.start_time,
    end_time: u.end_time,
    privilege: u.privilege,
    group: u.group,
    super_authorize: u.super_authorize,
    areas: [...u.areas],
    access_levels: [...u.access_levels],
    photo: u.photo === null ? null : userPhotoView(u.pin, u.photo),
    has_biometric: hasBiometric,
    biometric_templates: templates ? templates.map(templateView) : null,
    created_at: u.created_at,
    updated_at: u.updated_at,
    department: u.department,
    position: u.position,
  };
}

/** Views for many users with one template query. */
export async function userViews(
  store: Store,
  location: Location,
  users: readonly User[],
  includeTemplates: boolean,
  audience: UserAudience,
) {
  const pins = users.map((u) => u.pin);
  if (includeTemplates) {
    const all = await store.templates.listForUsers(location.id, pins);
    const byPin = new Map<number, Template[]>();
    for (const t of all) (byPin.get(t.user_pin) ?? byPin.set(t.user_pin, []).get(t.user_pin))?.push(t);
    return users.map((u) => {
      const ts = byPin.get(u.pin) ?? [];
      return userView(u, location, ts.length > 0, ts, audience);
    });
  }
  const withTemplates = await store.templates.pinsWithTemplates(location.id, pins);
  return users.map((u) => userView(u, location, withTemplates.has(u.pin), null, audience));
}
