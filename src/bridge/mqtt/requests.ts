/**
 * `<base>/<loc>/request/command` → `<base>/<loc>/response/command` (zigbee2mqtt's
 * request/response model): the body is the POST /api/commands body plus an optional
 * `transaction`, validated and queued by the same functions as the REST route
 * (src/commands/queue.ts queueCommand, src/validation/input.ts check), and answered with one envelope:
 * `{status: "ok", data: CommandResponse, transaction}` or `{status: "error", error: {detail, code}, transaction}`.
 */
import type { Static } from 'typebox';
import { queueCommand } from '../../commands/queue.js';
import { FullCommandBody } from '../../commands/schemas.js';
import { check, jsonDepthExceeds, MAX_JSON_DEPTH } from '../../validation/input.js';
import { authenticate, requireWrite } from '../../auth/authenticate.js';
import type { RateLimiter } from '../../auth/rate-limit.js';
import type { Clock } from '../../clock.js';
import type { CommandQueue } from '../../devices/command-queue.js';
import { BioGateError, invalid, toErrorResponse } from '../../errors.js';
import type { Logger } from '../../log.js';
import { actingAs, actor } from '../../audit-log/actor.js';
import type { AuditEntry } from '../../store/ports/index.js';
import type { Store } from '../../store/types.js';
import { commandView } from '../../views/command.js';
import type { Identity } from './acl.js';

/** A command body is at most ~16 KB of command text plus params; anything far larger is not one. */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** Requests being queued at once, all clients together; past it the answer is RATE_LIMITED (bounded work per broker). */
export const MAX_REQUESTS_IN_FLIGHT = 64;

export type Transaction = string | number;

export type ResponseEnvelope =
  | { status: 'ok'; data: unknown; transaction?: Transaction }
  | { status: 'error'; error: { detail: unknown; code: string }; transaction?: Transaction };

export interface RequestDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly commands: CommandQueue;
  readonly log: Logger;
  /** The REST API's per-token limiter (BIOGATE_RATE_LIMIT_RPS): a request takes from its token's bucket. */
  readonly limiter?: RateLimiter;
  /** Told of the audit entries a request's command wrote, after their commit (the feed's `audit.recorded`). */
  readonly announceAudit?: (entries: readonly AuditEntry[]) => void;
}

export function createRequestHandler(deps: RequestDeps) {
  let inFlight = 0;

  /** The body as JSON, with its transaction taken out; errors carry the same codes as the REST API. */
  function parse(payload: Buffer): { body: Record<string, unknown>; transaction: Transaction | undefined } {
    if (payload.length > MAX_REQUEST_BYTES) throw new BioGateError('PAYLOAD_TOO_LARGE', `A request is at most ${MAX_REQUEST_BYTES} bytes`);
    if (payload.length === 0) throw new BioGateError('BAD_REQUEST', 'A JSON body is required');
    if (jsonDepthExceeds(payload, MAX_JSON_DEPTH))
      throw new BioGateError('BAD_REQUEST', `Body nests JSON arrays/objects deeper than ${MAX_JSON_DEPTH} levels`);
    let raw: unknown;
    try {
      raw = JSON.parse(payload.toString('utf8'));
    } catch {
      throw new BioGateError('BAD_REQUEST', 'Body is not valid JSON');
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new BioGateError('BAD_REQUEST', 'Body must be a JSON object');
    const { transaction, ...body } = raw as Record<string, unknown>;
    return { body, transaction: checkTransaction(transaction) };
  }

  /** The caller as the REST API would see it, re-checked per request so a revoked token stops queueing at once. */
  async function callerFor(identity: Identity, locationId: number) {
    if (identity.kind === 'admin') {
      const location = await deps.store.locations.get(locationId);
      if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${locationId} not found`);
      if (!location.is_active) throw new BioGateError('LOCATION_DISABLED', `Location ${locationId} is disabled`);
      return { location, token: null };
    }
    const caller = await authenticate(deps.store, `Bearer ${identity.token}`, deps.clock.now());
    requireWrite(caller);
    return caller;
  }

  /** Every request of a location client counts, valid or not, as every REST request does; the admin has no bucket (as on /admin). */
  function limited(identity: Identity): unknown {
    if (identity.kind !== 'location' || !deps.limiter) return undefined;
    try {
      deps.limiter.take(identity.tokenId);
      return undefined;
    } catch (err) {
      return err;
    }
  }

  return {
    /** Never throws: every outcome is an envelope for the response topic. */
    async handle(identity: Identity, locationId: number, payload: Buffer): Promise<ResponseEnvelope> {
      let transaction: Transaction | undefined;
      const withTx = <T extends object>(envelope: T) => (transaction === undefined ? envelope : { ...envelope, transaction });
      try {
        const refusal = limited(identity);
        const parsed = parse(payload);
        transaction = parsed.transaction;
        if (refusal) throw refusal;
        if (inFlight >= MAX_REQUESTS_IN_FLIGHT) throw new BioGateError('RATE_LIMITED', 'Too many command requests at once; retry shortly');
        inFlight++;
        try {
          const caller = await callerFor(identity, locationId);
          const body = check<Static<typeof FullCommandBody>>(FullCommandBody, parsed.body, 'body');
          // The command is the caller's change (src/audit-log/): the location token's, or the admin's.
          const who = caller.token ? actor('token', { token_id: caller.token.id, label: caller.token.label }) : actor('admin');
          const queued = await actingAs(who, deps.announceAudit, () => queueCommand(deps.commands, caller, body.sn, body));
          const data = commandView(queued, caller.location);
          return withTx({ status: 'ok' as const, data });
        } finally {
          inFlight--;
        }
      } catch (err) {
        const { body } = toErrorResponse(err);
        if (body.code === 'INTERNAL') deps.log.error({ err, location: locationId }, 'mqtt command request failed');
        return withTx({ status: 'error' as const, error: { detail: body.detail, code: body.code } });
      }
    },
  };
}

/** zigbee2mqtt echoes any transaction; here a bounded string or a finite number, so the echo stays small. */
function checkTransaction(value: unknown): Transaction | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.length <= 128) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw invalid(['body', 'transaction'], 'must be a string of at most 128 characters or a number', 'type_error');
}
