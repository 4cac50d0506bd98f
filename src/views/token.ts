/** Token records → their public view: never the hash, and the token text only once, when issued. */
import { Type } from 'typebox';
import type { Token } from '../store/ports/index.js';
import { Nullable } from './common.js';

export const TokenScopeSchema = Type.Union([Type.Literal('full'), Type.Literal('operator'), Type.Literal('read')]);

export const TokenView = Type.Object(
  {
    id: Type.Integer(),
    location_id: Type.Integer(),
    scope: TokenScopeSchema,
    label: Nullable(Type.String()),
    expires_at: Nullable(Type.String()),
    revoked_at: Nullable(Type.String()),
    created_at: Type.String(),
  },
  { title: 'Token' },
);

/** A token record without its hash, for listings. */
export function publicToken(t: Token): Omit<Token, 'hash'> {
  const { hash: _hash, ...rest } = t;
  return rest;
}
