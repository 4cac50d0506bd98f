/**
 * What a webhook sends (issue #36 item 5): `filter`, `format`, `template`, `format_options` and `headers` of
 * POST and PATCH /api/webhooks, checked here beyond their schemas. Rendering is src/webhooks/formats.ts.
 *
 * - `template` goes with `format: "template"` only and is required by it; `format_options.chat_id` goes with
 *   `telegram` and `format_options.token` (the Odoo kiosk token) with `odoo_attendance`, each required there.
 * - A PATCH that changes the format drops the old format's template and options; one that keeps it keeps them
 *   unless it brings new ones. `headers` given replaces every extra header (`{}` removes them).
 * - Header names are stored in lower case; the ones BioGate sets (content type and length, host, user agent,
 *   connection and transfer headers, the Standard Webhooks headers) are refused.
 */
import { Type, type Static } from 'typebox';
import { invalid } from '../errors.js';
import { WEBHOOK_FORMATS, type WebhookFormatOptions, type WebhookShape } from '../store/ports/index.js';
import { MAX_PLACEHOLDERS, placeholders, TEMPLATE_ROOTS } from '../webhooks/formats.js';
import { Nullable } from '../views/common.js';

/** A template's JSON text at most. */
export const MAX_TEMPLATE_BYTES = 16_384;
const MAX_HEADERS = 20;
const MAX_FILTER_ITEMS = 1_000;

const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) =>
  Type.Optional(Type.Array(item, { minItems: 1, maxItems: MAX_FILTER_ITEMS, uniqueItems: true, description }));

export const FilterSchema = Nullable(
  Type.Object(
    {
      sn: list(Type.String({ minLength: 1, maxLength: 64 }), 'Only events of these terminals'),
      area_id: list(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), 'Only events of terminals in these areas'),
      pin: list(Type.String({ minLength: 1, maxLength: 64 }), 'Only punches and door events of these PINs'),
      event_codes: list(Type.Integer({ minimum: 0, maximum: 65_535 }), 'Only door events with these codes'),
    },
    {
      title: 'WebhookFilterInput',
      additionalProperties: false,
      description:
        'Which events of its types the webhook gets: every key given must match; an event without that field (no terminal, PIN or code) does not. Attendance uploads are cut to their matching punches. null or {}: every event.',
    },
  ),
);
export const FormatSchema = Type.Union(
  WEBHOOK_FORMATS.map((f) => Type.Literal(f)),
  {
    description:
      'standard (the signed envelope), template (your JSON with {{placeholders}}), or a preset: erpnext_checkin, odoo_attendance, slack, telegram',
  },
);
export const TemplateSchema = Nullable(
  Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Array(Type.Unknown())], {
    description:
      'Required by, and only with, format template: the JSON body, where "{{data.records.0.pin}}" is the value at that path of the standard envelope (a string that is only a placeholder keeps the value\'s type)',
  }),
);
export const FormatOptionsSchema = Nullable(
  Type.Object(
    {
      chat_id: Type.Optional(
        Type.String({ minLength: 1, maxLength: 64, description: 'Required by, and only with, format telegram: the chat to post to' }),
      ),
      token: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'Required by, and only with, format odoo_attendance: the attendance kiosk token (never shown again)',
        }),
      ),
    },
    { title: 'WebhookFormatOptionsInput', additionalProperties: false },
  ),
);
/** An HTTP field name (RFC 9110 token), at most 64 characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
export const HeadersSchema = Type.Record(
  Type.String({ pattern: HEADER_NAME.source }),
  Type.String({ maxLength: 1024, pattern: '^[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$' }),
  {
    maxProperties: MAX_HEADERS,
    description: 'Extra request headers (an API key for ERPNext or Odoo); values are never shown again',
  },
);

/** The body fields of POST and PATCH that shape what is sent. */
export const ShapeFields = {
  filter: Type.Optional(FilterSchema),
  format: Type.Optional(FormatSchema),
  template: Type.Optional(TemplateSchema),
  format_options: Type.Optional(FormatOptionsSchema),
  headers: Type.Optional(HeadersSchema),
};

export interface ShapeInput {
  readonly filter?: Static<typeof FilterSchema>;
  readonly format?: Static<typeof FormatSchema>;
  readonly template?: Static<typeof TemplateSchema>;
  readonly format_options?: Static<typeof FormatOptionsSchema>;
  readonly headers?: Static<typeof HeadersSchema>;
}

const RESERVED = new Set([
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

function checkHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    // The schema's key pattern does not refuse other keys (patternProperties): checked here.
    if (!HEADER_NAME.test(name)) throw invalid(['body', 'headers', name], 'is not an HTTP header name (letters, digits, -, at most 64)');
    const key = name.toLowerCase();
    if (RESERVED.has(key) || key.startsWith('proxy-')) throw invalid(['body', 'headers', name], 'is set by BioGate and cannot be replaced');
    if (key in out) throw invalid(['body', 'headers', name], 'is given twice (header names ignore case)');
    out[key] = value;
  }
  return out;
}

function checkTemplate(template: unknown): void {
  if (Buffer.byteLength(JSON.stringify(template)) > MAX_TEMPLATE_BYTES) {
    throw invalid(['body', 'template'], `must be at most ${MAX_TEMPLATE_BYTES} bytes of JSON`);
  }
  const paths = placeholders(template);
  if (paths.length > MAX_PLACEHOLDERS) throw invalid(['body', 'template'], `has more than ${MAX_PLACEHOLDERS} placeholders`);
  const bad = paths.find((p) => !(TEMPLATE_ROOTS as readonly string[]).includes(p.split('.')[0] as string));
  if (bad !== undefined) throw invalid(['body', 'template'], `{{${bad}}} must start with one of ${TEMPLATE_ROOTS.join(', ')}`);
}

/** What the format needs, from the body or (same format) the stored options. */
function optionsFor(format: WebhookShape['format'], body: ShapeInput, kept: WebhookFormatOptions | null): WebhookFormatOptions | null {
  const given = body.format_options === undefined ? undefined : (body.format_options ?? {});
  if (given?.chat_id !== undefined && format !== 'telegram')
    throw invalid(['body', 'format_options', 'chat_id'], 'goes with the telegram format only');
  if (given?.token !== undefined && format !== 'odoo_attendance') {
    throw invalid(['body', 'format_options', 'token'], 'goes with the odoo_attendance format only');
  }
  if (body.template !== undefined && body.template !== null && format !== 'template') {
    throw invalid(['body', 'template'], 'goes with the template format only');
  }
  if (format === 'template') {
    const template = body.template === undefined ? kept?.template : body.template;
    if (template === undefined || template === null) throw invalid(['body', 'template'], 'is required by the template format');
    checkTemplate(template);
    return { template };
  }
  if (format === 'telegram') {
    const chat_id = given ? given.chat_id : kept?.chat_id;
    if (chat_id === undefined) throw invalid(['body', 'format_options', 'chat_id'], 'is required by the telegram format');
    return { chat_id };
  }
  if (format === 'odoo_attendance') {
    const token = given ? given.token : kept?.token;
    if (token === undefined) throw invalid(['body', 'format_options', 'token'], 'is required by the odoo_attendance format');
    return { token };
  }
  return null;
}

/** The shape a POST creates, or the fields a PATCH changes (`before`: the stored subscription). */
export function shapeOf(body: ShapeInput, before?: WebhookShape): Partial<WebhookShape> {
  const format = body.format ?? before?.format ?? 'standard';
  const touched = body.format !== undefined || body.template !== undefined || body.format_options !== undefined;
  const kept = before && before.format === format ? before.format_options : null;
  const filter = body.filter === undefined ? undefined : body.filter === null || Object.keys(body.filter).length === 0 ? null : body.filter;
  return {
    ...(filter !== undefined ? { filter } : {}),
    ...(touched || !before ? { format, format_options: optionsFor(format, body, kept) } : {}),
    ...(body.headers !== undefined ? { headers: checkHeaders(body.headers) } : {}),
  };
}
