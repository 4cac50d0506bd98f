/** A route of the BioTime API: a path under `/biotime` (router form, trailing slash as BioTime writes it) and its handler. */
import type { Caller } from '../auth/authenticate.js';
import type { HttpMethod, HttpRequest, HttpResponse } from '../http/types.js';

export interface BiotimeRoute {
  readonly method: HttpMethod;
  /** `/biotime/iclock/api/transactions/:id/` */
  readonly path: string;
  /** Field names of BioGate's validation issues as this route's body names them (`pin` → `emp_code`). */
  readonly fields?: Readonly<Record<string, string>>;
  readonly handler: (req: HttpRequest, caller: Caller) => Promise<HttpResponse> | HttpResponse;
}

export const PREFIX = '/biotime';

/** A record id in a path: a positive integer, or the record is not found (DRF's 404 for a bad pk). */
export function idOf(req: HttpRequest): number | undefined {
  const raw = req.params['id'] ?? '';
  return /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
}
