/**
 * GET /api/openapi.json: an OpenAPI 3.1 document built from the route
 * definitions and their TypeBox schemas (the same objects the validators use).
 *
 * The schemas are rewritten for the document only (validation keeps the TypeBox originals):
 * - a union of literals (`anyOf` of `const`s, TypeBox's Union of Literal) becomes one `enum`:
 *   client generators turn `anyOf`+`const` into a type that rejects valid values;
 * - every object shape is a named component, referenced wherever it appears: the views under their service
 *   description names (`UserResponse`, `LocationBasic`, `UserPage`, …), the rest after where they are
 *   (src/api/openapi-names.ts); every operation has the readable id of src/api/operation-ids.ts.
 * The command preset catalog (protocols/catalog.ts) is documented twice: as a table in the
 * command operations' request body (what people read, rendered by /api/docs), and as `x-presets`
 * with each preset's params schema (what programs read).
 */
import type { TSchema } from 'typebox';
import { CATALOG, CUSTOM_MAX_BYTES, defaultExpirySeconds } from '../../protocols/catalog.js';
import { ERROR_CATALOG, type ErrorCode } from '../errors.js';
import { ApiCommandBody, CommandBody, FullCommandBody } from '../commands/schemas.js';
import { ComponentNames, pascal } from './openapi-names.js';
import { operationId } from './operation-ids.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { ErrorBody } from './schemas.js';

type Json = Record<string, unknown>;

interface Props {
  properties?: Record<string, TSchema & { description?: string; default?: unknown }>;
  required?: string[];
}

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  location: 'The location of the calling token',
  users: 'People enrolled at the location, and their biometric templates',
  devices: 'Terminals assigned to the location',
  commands: 'Commands queued for terminals (presets: see x-presets)',
  attendance: 'Punches received from the terminals',
  events: 'Door and alarm events, raw device records',
  webhooks: 'Signed HTTP callbacks of the location\'s events (README "Webhooks")',
  audit: 'Who changed what: the audit log (README "Audit log")',
  alerts: 'Alert rules and their incidents (README "Alert rules")',
  admin: 'Operator API (BIOGATE_ADMIN_TOKEN)',
  meta: 'This document and its rendering',
};

/** [POST /api/commands] `Idempotency-Key`: a retried request with the same key returns the first command. */
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a second request with the same key (for the same token, within 24 h) answers with the command the first one queued instead of queueing another. 1 to 128 visible ASCII characters.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,128}$' },
};

/**
 * TypeBox schemas are JSON Schema; drop TypeBox's own symbol-keyed metadata by a JSON round trip (and our
 * `errorMessage` annotation, which is for the validator's messages, not a JSON Schema keyword), then rewrite unions.
 */
const plain = (s: TSchema): Json => enums(JSON.parse(JSON.stringify(s), (k, v: unknown) => (k === 'errorMessage' ? undefined : v)) as Json);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `anyOf: [{const: a}, {const: b}, {type: 'null'}]` → `{type: [...], enum: [a, b, null]}`. Only when every
 * member is a bare literal (or null): a member with its own constraints keeps the `anyOf`. The union's
 * own annotations (description, default) stay.
 */
function enums(node: unknown): Json {
  if (Array.isArray(node)) return node.map((n) => enums(n)) as unknown as Json;
  if (!isObject(node)) return node as Json;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, isObject(v) || Array.isArray(v) ? enums(v) : v]));
  const members = out['anyOf'];
  if (!Array.isArray(members) || members.length === 0) return out;
  const values: unknown[] = [];
  const types = new Set<string>();
  for (const m of members as Json[]) {
    const keys = Object.keys(m).filter((k) => k !== 'type');
    if (keys.length === 1 && keys[0] === 'const') {
      values.push(m['const']);
      types.add(
        typeof m['type'] === 'string'
          ? m['type']
          : typeof m['const'] === 'number'
            ? Number.isInteger(m['const'])
              ? 'integer'
              : 'number'
            : typeof m['const'],
      );
    } else if (m['type'] === 'null' && Object.keys(m).length === 1) {
      values.push(null);
      types.add('null');
    } else return out;
  }
  const { anyOf: _members, ...rest } = out;
  const list = [...types];
  return { type: list.length === 1 ? list[0] : list, enum: values, ...rest };
}

function parameters(schema: TSchema | undefined, where: 'path' | 'query') {
  const p = schema as Props | undefined;
  return Object.entries(p?.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    // A query parameter with a default (page, limit) may be left out, whatever TypeBox's `required` says.
    required: where === 'path' || ((p?.required ?? []).includes(name) && !('default' in s)),
    ...(s.description ? { description: s.description } : {}),
    schema: plain(s),
  }));
}

/** Answers every operation can give: an unserved method on its path, and the store or the process not being available. */
const ALWAYS: readonly ErrorCode[] = ['INTERNAL', 'METHOD_NOT_ALLOWED', 'STORE_UNAVAILABLE', 'SHUTTING_DOWN'];

function errorResponses(route: ApiRoute): Record<string, unknown> {
  const codes = new Set<ErrorCode>(ALWAYS);
  if (route.auth !== 'none') codes.add('UNAUTHORIZED');
  if (route.auth === 'admin') codes.add('NOT_FOUND');
  if (route.auth === 'location') {
    codes.add('LOCATION_DISABLED');
    if (route.method !== 'GET') codes.add('SCOPE_DENIED');
    codes.add('RATE_LIMITED');
  }
  if (route.params || route.query || route.body) codes.add('VALIDATION_FAILED');
  if (route.body) {
    codes.add('BAD_REQUEST');
    codes.add('PAYLOAD_TOO_LARGE');
  }
  for (const c of route.doc.errors ?? []) if (c in ERROR_CATALOG) codes.add(c as ErrorCode);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) {
    const status = ERROR_CATALOG[c].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), c]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => {
        const headers: Json = {};
        if (status === 405) headers['Allow'] = { description: 'The methods this path serves', schema: { type: 'string' } };
        if (list.includes('RATE_LIMITED') || list.includes('MAILBOX_FULL') || list.includes('EXPORT_BUSY'))
          headers['Retry-After'] = { description: 'Seconds to wait before retrying', schema: { type: 'string' } };
        if (status === 401) headers['WWW-Authenticate'] = { description: 'The expected scheme (Bearer)', schema: { type: 'string' } };
        return [
          String(status),
          {
            description: list.map((c) => `\`${c}\`: ${ERROR_CATALOG[c].description}`).join(' '),
            ...(Object.keys(headers).length > 0 ? { headers } : {}),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ];
      }),
  );
}

/** `door_id` (default 1): Relay index 1 to 4 — one line per parameter of a preset. */
function paramSummary(schema: TSchema): string {
  const props = (schema as Props).properties ?? {};
  const required = new Set((schema as Props).required ?? []);
  return Object.entries(props)
    .map(
      ([name, s]) =>
        `\`${name}\`${required.has(name) ? ' (required)' : 'default' in s ? ` (default ${JSON.stringify(s.default)})` : ''}${s.description ? `: ${s.description}` : ''}`,
    )
    .join('<br>');
}

/** The preset catalog as a Markdown table, for the command operations' request body. */
function presetTable(): string {
  const rows = CATALOG.map(
    (p) =>
      `| \`${p.id}\`${p.aliases.length > 0 ? ` (${p.aliases.map((a) => `\`${a}\``).join(', ')})` : ''} | ${p.versions.map((v) => `v${v}`).join(', ')} | ${p.risk === 'risky' ? 'full token' : 'full or operator'} | ${p.hasParams ? paramSummary(p.params) : 'none'} | ${p.description} |`,
  );
  return [
    "`command` names a preset (or an alias); `params` must match that preset's parameters (JSON Schemas in the document's `x-presets`).",
    '',
    '| Preset | Protocols | Token scope | Params | What it does |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * What `command` takes, as the server checks it (src/devices/command-queue.ts `resolve`): a preset id
 * or alias, exactly; or a raw protocol line (the `custom` preset), which must not look like an id
 * (lower-case letters, digits and `-` only: that is an unknown preset, 422), must be one line, and
 * must not carry its own `C:` framing.
 */
function commandSchema(): Json {
  return {
    description:
      'A preset id or alias (see the table and `x-presets`), or a raw protocol command line (the `custom` preset; then no `params`)',
    anyOf: [
      { $ref: '#/components/schemas/PresetId' },
      {
        type: 'string',
        minLength: 1,
        maxLength: CUSTOM_MAX_BYTES,
        pattern: '^(?![a-z0-9-]+$)(?![Cc]:)[^\\r\\n\\u0000]+$',
        description: 'A raw protocol command line: one line, without the C:<id>: framing the gateway adds',
      },
    ],
  };
}

/** The command body as the document states it: `command` as checked, `params` per preset. */
function commandBodySchema(body: TSchema): Json {
  const out = plain(body);
  const props = { ...(out['properties'] as Record<string, Json>) };
  props['command'] = commandSchema();
  props['params'] = {
    ...props['params'],
    description:
      "The preset's parameters, checked against its schema in `x-presets` (defaults filled in); a preset whose parameters include required ones " +
      'refuses a body without them (422). Presets without parameters, and raw commands, take none: leave it out, or null or {}.',
  };
  // POST /api/commands: exactly one of sn and target (the handler refuses both or neither with 422).
  const exactlyOne = body === ApiCommandBody ? { oneOf: [{ required: ['sn'] }, { required: ['target'] }] } : {};
  return { ...out, properties: props, ...exactlyOne };
}

function presetsExtension() {
  return CATALOG.map((p) => ({
    id: p.id,
    aliases: p.aliases,
    protocol_versions: p.versions.map((v) => `${v}.0.0`),
    risk: p.risk,
    scope: p.risk === 'risky' ? ['full'] : ['full', 'operator'],
    door: p.door,
    default_expires_in: defaultExpirySeconds(p),
    has_params: p.hasParams,
    description: p.description,
    params: plain(p.params),
  }));
}

/** Bytes of these media types [OpenAPI 3.1 §4.8.14.3: `contentMediaType`]. */
const binaryContent = (media: readonly string[]) =>
  Object.fromEntries(media.map((m) => [m, { schema: { type: 'string', contentMediaType: m } }]));

export function buildOpenApi(routes: readonly ApiRoute[], version: string): Record<string, unknown> {
  const names = new ComponentNames();
  names.name(plain(ErrorBody), 'Error');
  names.schemas['PresetId'] = {
    title: 'PresetId',
    type: 'string',
    enum: CATALOG.flatMap((p) => [p.id, ...p.aliases]),
    description: 'A command preset, by id or alias (x-presets)',
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    route.doc.tags.forEach((t) => tags.add(t));
    const id = operationId(route.method, route.path);
    const ok = Object.fromEntries(
      Object.entries(route.doc.responses).map(([status, schema]) => [
        status,
        schema === null
          ? route.doc.responseMedia
            ? { description: 'Success', content: binaryContent([route.doc.responseMedia]) }
            : { description: 'No body' }
          : { description: 'Success', content: { 'application/json': { schema: names.name(plain(schema), `${pascal(id)}Result`) } } },
      ]),
    );
    const isCommand = route.body === CommandBody || route.body === FullCommandBody || route.body === ApiCommandBody;
    const op: Record<string, unknown> = {
      operationId: id,
      summary: route.doc.summary,
      ...(route.doc.description ? { description: route.doc.description } : {}),
      tags: route.doc.tags,
      security: route.auth === 'location' ? [{ LocationApiKey: [] }] : route.auth === 'admin' ? [{ AdminToken: [] }] : [],
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query'), ...(isCommand ? [IDEMPOTENCY_HEADER] : [])],
      ...(route.body
        ? {
            requestBody: {
              required: route.bodyRequired ?? true,
              ...(isCommand ? { description: presetTable() } : {}),
              content: {
                'application/json': {
                  schema: names.name(isCommand ? commandBodySchema(route.body) : plain(route.body), `${pascal(id)}Body`, false),
                },
              },
            },
          }
        : route.doc.requestMedia
          ? { requestBody: { required: true, content: binaryContent(route.doc.requestMedia) } }
          : {}),
      responses: { ...ok, ...errorResponses(route) },
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'BioGate API',
      version,
      description:
        'Multi-tenant gateway for biometric access and attendance terminals. Every /api call is scoped to the location of its bearer token. ' +
        'Errors are `{detail, code}` (see the Error schema). Any path answers 405 with an `Allow` header for a method it does not serve, ' +
        'and 503 while the store is unreachable or the gateway is stopping. Browsers on other origins: see BIOGATE_CORS_ORIGINS.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags: [
      ...[...tags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
      // The BioTime-compatible API speaks BioTime's conventions (paths with a trailing slash, DRF errors): its own
      // document, so a client generated from this one stays BioGate's (src/biotime/openapi.ts).
      {
        name: 'biotime',
        description: 'The BioTime-compatible API under /biotime/ (unless BIOGATE_BIOTIME_API=off), described in its own document',
        externalDocs: { url: '/biotime/openapi.json', description: 'The BioTime-compatible API (OpenAPI 3.1)' },
      },
    ],
    paths,
    components: {
      securitySchemes: {
        LocationApiKey: { type: 'http', scheme: 'bearer', description: "A location's API token (bg_…)" },
        AdminToken: { type: 'http', scheme: 'bearer', description: 'BIOGATE_ADMIN_TOKEN' },
      },
      schemas: names.schemas,
    },
    'x-presets': presetsExtension(),
  };
}

/** The document route itself (public: it describes, it reveals no data). */
export function openApiRoute(routes: () => readonly ApiRoute[], version: string): ApiRoute {
  let cached: Record<string, unknown> | undefined;
  return defineRoute({
    method: 'GET',
    path: '/api/openapi.json',
    auth: 'none',
    doc: { summary: 'This OpenAPI 3.1 document', tags: ['meta'], responses: { 200: null } },
    handler: () => json(200, (cached ??= buildOpenApi(routes(), version))),
  });
}
