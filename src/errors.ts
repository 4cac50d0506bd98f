/**
 * One error type for the whole gateway, with a stable code from a catalog.
 *
 * Codes are part of the public contract (README "Errors" table, checked by
 * test/errors.test.ts): clients branch on `code`, never on `detail` text.
 * `toErrorBody` is the single mapping from an error to an HTTP status and body.
 */

export interface ValidationIssue {
  /** Where the problem is: starts with "body", "query" or "path" [API-CONTRACT §3]. */
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
}

interface CatalogEntry {
  readonly status: number;
  readonly description: string;
}

/** The error catalog. Adding a code here requires a README row (a test enforces it). */
export const ERROR_CATALOG = {
  BAD_REQUEST: {
    status: 400,
    description: 'The request is malformed: invalid JSON, JSON nested deeper than 64 levels, or the wrong top-level type.',
  },
  UNAUTHORIZED: { status: 401, description: 'Authorization is missing, not Bearer, unknown, revoked or expired.' },
  LOCATION_DISABLED: { status: 403, description: 'The token belongs to a disabled location.' },
  SCOPE_DENIED: { status: 403, description: "The token's scope does not allow this operation." },
  DEVICE_OTHER_LOCATION: { status: 403, description: 'The device is assigned to another location.' },
  DEVICE_CLAIM_ADMIN: {
    status: 403,
    description: 'BIOGATE_DEVICE_CLAIM=admin: this serial was never assigned to your location; the admin assigns it (admin API or CLI).',
  },
  NOT_FOUND: { status: 404, description: 'No route at this path.' },
  USER_NOT_FOUND: { status: 404, description: 'No user with this PIN in your location.' },
  DEVICE_NOT_FOUND: { status: 404, description: 'No device with this serial number in your location.' },
  COMMAND_NOT_FOUND: { status: 404, description: 'No command with this id in your location.' },
  LOCATION_NOT_FOUND: { status: 404, description: 'No location with this id (admin API, CLI).' },
  TOKEN_NOT_FOUND: { status: 404, description: 'No token with this id (admin API, CLI).' },
  WEBHOOK_NOT_FOUND: { status: 404, description: 'No webhook with this id in your location.' },
  SCENARIO_NOT_ACTIVE: { status: 404, description: 'This scenario is not in force at your location, so there is nothing to release.' },
  AREA_NOT_FOUND: { status: 404, description: 'No area with this id in your location.' },
  ATTENDANCE_NOT_FOUND: { status: 404, description: 'No attendance record with this id in your location.' },
  TEMPLATE_NOT_FOUND: { status: 404, description: 'The user holds no template of this type and number.' },
  PHOTO_NOT_FOUND: { status: 404, description: 'The user or attendance record has no photo.' },
  SCHEDULE_NOT_FOUND: { status: 404, description: 'No schedule with this id in your location.' },
  ACCESS_LEVEL_NOT_FOUND: { status: 404, description: 'No access level with this id in your location.' },
  HOLIDAY_NOT_FOUND: { status: 404, description: 'No holiday with this id in your location.' },
  ALERT_RULE_NOT_FOUND: { status: 404, description: 'No alert rule with this id in your location.' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists but not for this method.' },
  COMMAND_ALREADY_SENT: { status: 409, description: 'The command left the queue already and cannot be cancelled.' },
  SCENARIO_ACTIVE: { status: 409, description: 'Another scenario is in force at your location: release it first.' },
  DEVICE_ASSIGNED: { status: 409, description: 'The device is assigned to a location: unassign it first (admin API, CLI).' },
  ATTENDANCE_VOIDED: { status: 409, description: 'The attendance record is voided already.' },
  ATTENDANCE_EXISTS: { status: 409, description: 'A manual punch of this PIN with this time and status exists already.' },
  AREA_IN_USE: { status: 409, description: 'Terminals are in the area: move them to another area (or none) first.' },
  SCHEDULE_IN_USE: { status: 409, description: 'An access level names the schedule: change or delete the level first.' },
  AUDIT_STARTING: { status: 409, description: 'An audit of the terminal is being started by another request or node: retry shortly.' },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    description: 'The body is larger than BIOGATE_BODY_LIMIT_MB, an import has more than 10,000 items, or a photo is over 1 MiB.',
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'A photo upload is not a JPEG or PNG image (by its bytes and its Content-Type).' },
  VALIDATION_FAILED: { status: 422, description: 'The body, query or path failed validation; `detail` lists every problem.' },
  PHOTO_INVALID: {
    status: 422,
    description: 'The photo cannot be decoded as the JPEG or PNG it claims to be, or is larger than 2,000 × 2,000 pixels.',
  },
  COMMAND_NOT_SUPPORTED: { status: 422, description: "The preset is not available on the device's known protocol version." },
  IDEMPOTENCY_KEY_REUSED: { status: 422, description: 'The Idempotency-Key was used before with a different body.' },
  MAILBOX_FULL: { status: 429, description: "The device's command queue is at its limit; retry after it drains." },
  RATE_LIMITED: {
    status: 429,
    description: 'Too many requests for this token, or too many wrong admin tokens from this address; see Retry-After.',
  },
  QUOTA_EXCEEDED: {
    status: 429,
    description:
      'The location is at a quota (BIOGATE_QUOTA_DEVICES, BIOGATE_QUOTA_USERS, BIOGATE_QUOTA_PHOTO_MB); `detail` names it. Remove some, or ask the operator.',
  },
  EXPORT_BUSY: {
    status: 429,
    description: 'Two CSV exports of this location are running already; retry after one ends (see Retry-After).',
  },
  INTERNAL: { status: 500, description: 'A bug. The response carries no details; the log has them.' },
  NOT_IMPLEMENTED: { status: 501, description: 'The request method is not one the gateway recognises (RFC 9110 §15.6.2).' },
  STORE_UNAVAILABLE: { status: 503, description: 'The store cannot be reached.' },
  SHUTTING_DOWN: { status: 503, description: 'The gateway is stopping and takes no new work.' },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export class BioGateError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Safe to show to the caller: a sentence, or the list of validation issues. */
  readonly detail: string | readonly ValidationIssue[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    detail: string | readonly ValidationIssue[],
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(typeof detail === 'string' ? detail : `${code}: ${detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, {
      cause: options.cause,
    });
    this.name = 'BioGateError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.detail = detail;
    this.headers = options.headers ?? {};
  }
}

/**
 * The store was migrated by a newer BioGate (a SQLite schema version above the highest migration
 * this version knows; a MongoDB `meta` schema document above SCHEMA_VERSION): running on it could
 * corrupt what the newer version wrote, so the process refuses to start. Not an API error.
 */
export class StoreSchemaNewerError extends Error {
  constructor(store: 'sqlite' | 'mongodb', found: number, known: number) {
    super(
      `the ${store === 'sqlite' ? 'SQLite' : 'MongoDB'} store was migrated by a newer BioGate (schema version ${found}; this version knows up to ${known}): ` +
        'run the newer version, or restore a backup made by this one',
    );
    this.name = 'StoreSchemaNewerError';
  }
}

/** Shorthand for the common 422 with one issue. */
export function invalid(loc: readonly (string | number)[], msg: string, type = 'value_error'): BioGateError {
  return new BioGateError('VALIDATION_FAILED', [{ loc, msg, type }]);
}

export interface ErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: { detail: string | readonly ValidationIssue[]; code: ErrorCode };
}

/** The single mapping from anything thrown to what the client sees [API-CONTRACT §3]. */
export function toErrorResponse(err: unknown): ErrorResponse {
  if (err instanceof BioGateError) {
    return { status: err.status, headers: err.headers, body: { detail: err.detail, code: err.code } };
  }
  return { status: 500, headers: {}, body: { detail: 'Internal server error', code: 'INTERNAL' } };
}

/** The error table of src/api/ERRORS.md, generated from the catalog (test/errors.test.ts keeps them equal). */
export function errorTableMarkdown(): string {
  const rows = Object.entries(ERROR_CATALOG).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.description} |`);
  return ['| Code | HTTP | Meaning |', '|---|---|---|', ...rows].join('\n');
}
