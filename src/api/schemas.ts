/** Schemas of the REST API itself: the error body, pages and their query (record views are src/views/). */
import { Type, type TSchema } from 'typebox';
import { invalid } from '../errors.js';
import { instantOf } from '../validation/input.js';

export const ErrorBody = Type.Object(
  {
    detail: Type.Union([
      Type.String(),
      Type.Array(Type.Object({ loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() })),
    ]),
    code: Type.String(),
    error_id: Type.Optional(Type.String({ description: 'On 500 only: the id of the logged error, for the operator' })),
  },
  { title: 'Error' },
);

export const EmptyObject = Type.Object({}, { title: 'Empty', description: 'Empty JSON object' });

/**
 * The page wrapper of a record type [SERVICE-SPEC "Page wrapper"]; of a titled record, a component of its own named after
 * it (`UserResponse` → `UserPage`, src/api/openapi-names.ts).
 */
export const pageOf = <T extends TSchema & { title?: string }>(item: T) =>
  Type.Object(
    {
      data: Type.Array(item),
      total: Type.Integer(),
      page: Type.Integer(),
      limit: Type.Integer(),
      total_pages: Type.Integer(),
      has_next: Type.Boolean(),
      has_prev: Type.Boolean(),
    },
    typeof item.title === 'string' ? { title: `${item.title.replace(/Response$/, '')}Page` } : {},
  );

/** Highest page number: (page - 1) × limit must stay an exact integer offset for every store. */
export const PAGE_MAX = 1_000_000_000;

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 15 }),
};

export function pageWrapper<T>(items: readonly T[], total: number, page: number, limit: number) {
  const total_pages = Math.ceil(total / limit);
  return { data: items, total, page, limit, total_pages, has_next: page < total_pages, has_prev: page > 1 };
}

/**
 * An RFC 3339 date-time as JSON Schema's `format: date-time` defines it (a real calendar date, hours
 * 00–23, an offset), with seconds 00–59: JavaScript dates have no leap second, so `23:59:60Z` would
 * pass the format and still not be an instant. Stated in the schema, so clients validate alike.
 */
export const DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:[0-5]\\d(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$';

export const DateTimeText = (description: string) => Type.String({ format: 'date-time', pattern: DATE_TIME_PATTERN, description });

/**
 * `from`/`to` of the record lists: an RFC 3339 date-time, or a full date (`YYYY-MM-DD`, a real one)
 * that stands for UTC midnight (`to`: the last millisecond of that day).
 */
export const DateOrDateTime = Type.Union(
  [
    Type.String({ format: 'date', description: 'A date: 00:00 UTC that day (`to`: its last millisecond)' }),
    DateTimeText('An RFC 3339 date-time with seconds and offset, e.g. 2026-03-01T08:00:00Z'),
  ],
  { description: 'An RFC 3339 date-time (2026-03-01T08:00:00Z) or a date (2026-03-01: UTC midnight; for `to`, the end of that day)' },
);

/** A `from`/`to` query value as an instant: a bare date is UTC midnight (`end`: the last millisecond of that day). */
export function queryInstant(v: string, end: boolean, name: string): string {
  const d = instantOf(v.length === 10 ? `${v}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : v);
  if (!d) throw invalid(['query', name], 'must be a real date or datetime', 'format');
  return d.toISOString();
}

const IPV4 = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}';
const H = '[0-9A-Fa-f]{1,4}';
const IPV6 = [
  `(${H}:){7}${H}`,
  `(${H}:){1,7}:`,
  `(${H}:){1,6}:${H}`,
  `(${H}:){1,5}(:${H}){1,2}`,
  `(${H}:){1,4}(:${H}){1,3}`,
  `(${H}:){1,3}(:${H}){1,4}`,
  `(${H}:){1,2}(:${H}){1,5}`,
  `${H}:(:${H}){1,6}`,
  `:((:${H}){1,7}|:)`,
  `(${H}:){6}${IPV4}`,
  `(${H}:){1,5}:${IPV4}`,
  `::(${H}:){0,5}${IPV4}`,
].join('|');

/**
 * An IPv4 or IPv6 address with an optional prefix length (`192.0.2.0/24`, `2001:db8::/32`, a bare
 * address: /32 or /128), as src/net/cidr.ts parses it, without zone ids or surrounding spaces. The
 * schema carries it, so every string it admits is one the server accepts (test/api/openapi-fuzz.test.ts).
 */
export const CIDR_PATTERN = `^((${IPV4})(/(3[0-2]|[12]?\\d))?|(${IPV6})(/(12[0-8]|1[01]\\d|[1-9]?\\d))?)$`;

/**
 * An IANA time zone name, checked against the runtime's time zone database (src/time/zones.ts): the
 * set is the runtime's, so the document gives examples and says so rather than listing it.
 */
export const TimeZoneName = Type.String({
  minLength: 1,
  maxLength: 64,
  examples: ['Europe/Berlin', 'America/New_York', 'UTC'],
  description: "An IANA time zone name known to the server's time zone database (e.g. Europe/Berlin); an unknown name is refused (422)",
});
