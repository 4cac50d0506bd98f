/**
 * Department and position names of a location: one row per (location, kind, name), made when a user first names
 * it (src/users/), so a directory of them can be listed and addressed by id. Rows are never renamed or removed
 * here; a user's `department` and `position` hold the name, not the id.
 */
import type { Iso, Page, Window } from './records.js';

export type OrgKind = 'department' | 'position';

export const ORG_KINDS: readonly OrgKind[] = ['department', 'position'];

export interface OrgName {
  readonly id: number;
  readonly location_id: number;
  readonly kind: OrgKind;
  /** The name itself unless set otherwise (ensure makes code = name). */
  readonly code: string;
  readonly name: string;
  readonly created_at: Iso;
}

export interface OrgNamesPort {
  /** ordered by id; filter by exact code or name */
  list(
    locationId: number,
    kind: OrgKind,
    filter: { readonly code?: string; readonly name?: string },
    window: Window,
  ): Promise<Page<OrgName>>;
  get(locationId: number, kind: OrgKind, id: number): Promise<OrgName | undefined>;
  /**
   * The row named `name` (made with `code`, or code = name, when absent; an existing row keeps its code); safe under
   * concurrent calls from two processes: both get the same row.
   */
  ensure(locationId: number, kind: OrgKind, name: string, now: Iso, code?: string): Promise<OrgName>;
}
