/**
 * Rules for user writes beyond the schema: first_name required for a new user,
 * datetimes normalised to UTC, validity window order [API-CONTRACT §1, §5 Users], department and position trimmed.
 * Shared by every user write: one by one (POST /api/users) and in bulk
 * (the import endpoint and the CLI import).
 */
import { BioGateError, type ValidationIssue } from '../errors.js';
import { USER_FIELDS, type UserFields } from '../store/ports/index.js';
import { instantOf, isRealDate } from '../validation/input.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A date stays a date; a datetime becomes `YYYY-MM-DDTHH:MM:SS.sssZ` (no offset given = UTC). Undefined when not a real instant. */
export function normaliseWhen(value: string): string | undefined {
  if (DATE_ONLY.test(value)) return isRealDate(value) ? value : undefined;
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  return instantOf(withZone.replace(' ', 'T'))?.toISOString();
}

/** Comparable instant of a stored start/end value (dates: start of day / end of day, UTC). */
function instant(value: string, end: boolean): number {
  return DATE_ONLY.test(value) ? Date.parse(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`) : Date.parse(value);
}

export interface UserBody {
  readonly pin: number;
  readonly [key: string]: unknown;
}

/**
 * Validated body → store fields, with cross-field checks. `existing` tells whether the PIN is known
 * (first_name is then optional) and carries the stored window for the order check.
 */
export function toUserFields(
  body: UserBody,
  existing: { start_time: string | null; end_time: string | null } | undefined,
  root: readonly (string | number)[],
): UserFields {
  const { fields, issues } = checkUserFields(body, existing, root);
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
  return fields;
}

/**
 * The cross-field rules on fields that passed the schema, as issues (so a caller can list them
 * together with the schema's own issues). `existing === 'unknown'` skips the new-user rule: the PIN
 * itself was invalid, so whether the user exists cannot be told.
 */
export function checkUserFields(
  body: Readonly<Record<string, unknown>>,
  existing: { start_time: string | null; end_time: string | null } | undefined | 'unknown',
  root: readonly (string | number)[],
): { fields: UserFields; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const fields: Record<string, unknown> = {};
  const stored = existing === 'unknown' ? undefined : existing;
  for (const key of USER_FIELDS) if (key in body && body[key] !== undefined) fields[key] = body[key];
  // Stored trimmed: the schema admits only names with a character that is not a space.
  for (const key of ['department', 'position'] as const) if (typeof fields[key] === 'string') fields[key] = (fields[key] as string).trim();
  if (existing === undefined && (typeof fields['first_name'] !== 'string' || (fields['first_name'] as string).trim() === '')) {
    issues.push({ loc: [...root, 'first_name'], msg: 'field required for a new user', type: 'missing' });
  }
  let windowOk = true;
  for (const key of ['start_time', 'end_time'] as const) {
    const v = fields[key];
    if (typeof v !== 'string') continue;
    const n = normaliseWhen(v);
    if (n === undefined) {
      issues.push({ loc: [...root, key], msg: 'must be a real date (YYYY-MM-DD) or ISO datetime', type: 'format' });
      windowOk = false;
    } else fields[key] = n;
  }
  const start = (fields['start_time'] === undefined ? stored?.start_time : fields['start_time']) as string | null | undefined;
  const end = (fields['end_time'] === undefined ? stored?.end_time : fields['end_time']) as string | null | undefined;
  if (windowOk && start && end && instant(start, false) > instant(end, true)) {
    issues.push({ loc: [...root, 'end_time'], msg: 'must not be before start_time', type: 'value_error' });
  }
  return { fields: fields as UserFields, issues };
}
