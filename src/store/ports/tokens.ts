/** The API tokens port: hashed tokens of a location, with scope, expiry and revocation. */
import type { Iso } from './records.js';

export type TokenScope = 'full' | 'operator' | 'read';

export interface Token {
  readonly id: number;
  readonly location_id: number;
  /** SHA-256 of the token text, hex. The token itself is never stored. */
  readonly hash: string;
  readonly scope: TokenScope;
  readonly label: string | null;
  readonly expires_at: Iso | null;
  readonly revoked_at: Iso | null;
  readonly created_at: Iso;
}

export interface TokensPort {
  create(
    input: { location_id: number; hash: string; scope: TokenScope; label: string | null; expires_at: Iso | null },
    now: Iso,
  ): Promise<Token>;
  findByHash(hash: string): Promise<Token | undefined>;
  get(id: number): Promise<Token | undefined>;
  list(locationId?: number): Promise<readonly Token[]>;
  /** Idempotent: revoking twice keeps the first time. */
  revoke(id: number, now: Iso): Promise<Token | undefined>;
}
