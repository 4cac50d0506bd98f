/**
 * GET /api/openapi.json: an OpenAPI 3.1 document built from the route
 * definitions and their TypeBox schemas (the same objects the validators use).
 */
import type { TSchema } from 'typebox';
import { ERROR_CATALOG, type ErrorCode } from '../errors.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { ErrorBody } from './schemas.js';

interface Props {
  properties?: Record<string, TSchema & { description?: string }>;
  required?: string[];
}

/** TypeBox schemas are JSON Schema; drop TypeBox's own symbol-keyed metadata by a JSON round trip. */
const plain = (s: TSchema): unknown => JSON.parse(JSON.stringify(s));

function parameters(schema: TSchema | undefined, where: 'path' | 'query') {
  const p = schema as Props | undefined;
  return Object.entries(p?.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (p?.required ?? []).includes(name),
    ...(s.description ? { description: s.description } : {}),
    schema: plain(s),
  }));
}

function errorResponses(route: ApiRoute): Record<string, unknown> {
  const codes = new Set<ErrorCode>(['INTERNAL']);
  if (route.auth !== 'none') codes.add('UNAUTHORIZED');
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
    [...byStatus.entries()].map(([status, list]) => [
      String(status),
      {
        description: list.map((c) => `\`${c}\`: ${ERROR_CATALOG[c].description}`).join(' '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
}

export function buildOpenApi(routes: readonly ApiRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const ok = Object.fromEntries(
      Object.entries(route.doc.responses).map(([status, schema]) => [
        status,
        schema === null ? { description: 'No body' } : { description: 'Success', content: { 'application/json': { schema: plain(schema) } } },
      ]),
    );
    const op: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[/_-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      summary: route.doc.summary,
      ...(route.doc.description ? { description: route.doc.description } : {}),
      tags: route.doc.tags,
      security: route.auth === 'location' ? [{ LocationApiKey: [] }] : route.auth === 'admin' ? [{ AdminToken: [] }] : [],
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
      ...(route.body
        ? { requestBody: { required: route.bodyRequired ?? true, content: { 'application/json': { schema: plain(route.body) } } } }
        : {}),
      responses: { ...ok, ...errorResponses(route) },
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'BioGate API', version, description: 'Multi-tenant gateway for biometric access and attendance terminals. Every /api call is scoped to the location of its bearer token.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        LocationApiKey: { type: 'http', scheme: 'bearer', description: "A location's API token (bg_…)" },
        AdminToken: { type: 'http', scheme: 'bearer', description: 'BIOGATE_ADMIN_TOKEN' },
      },
      schemas: { Error: plain(ErrorBody) },
    },
  };
}

/** The document route itself (public: it describes, it reveals no data). */
export function openApiRoute(routes: () => readonly ApiRoute[], version: string): ApiRoute {
  let cached: Record<string, unknown> | undefined;
  return defineRoute({
    method: 'GET', path: '/api/openapi.json', auth: 'none',
    doc: { summary: 'This OpenAPI 3.1 document', tags: ['meta'], responses: { 200: null } },
    handler: () => json(200, (cached ??= buildOpenApi(routes(), version))),
  });
}
