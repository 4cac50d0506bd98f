/**
 * The BioTime-compatible API's own OpenAPI 3.1 document (`GET /biotime/openapi.json`, linked from the tag `biotime`
 * of /api/openapi.json): its paths, the two sign-in schemes, the envelope and error bodies BioTime clients read.
 * Written from the same route list the server mounts, so a path cannot be served without being described.
 */
import { packageVersion } from '../version.js';
import type { BiotimeRoute } from './route.js';

const TAG = 'biotime';
const SECURITY = [{ BiotimeToken: [] }, { BiotimeJwt: [] }];
const detailBody = { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] };
const fieldErrorBody = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string' } },
  description: 'One list of messages per field',
};
const jsonOf = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const listOf = {
  type: 'object',
  required: ['count', 'next', 'previous', 'msg', 'code', 'data'],
  properties: {
    count: { type: 'integer' },
    next: { type: ['string', 'null'], description: 'Absolute URL of the next page, every filter kept' },
    previous: { type: ['string', 'null'] },
    msg: { type: 'string' },
    code: { type: 'integer', const: 0 },
    data: { type: 'array', items: { type: 'object' } },
  },
};

const SUMMARIES: Readonly<Record<string, string>> = {
  'iclock/api/transactions': 'Punches (filters start_time, end_time, emp_code, terminal_sn, terminal_alias, id__gt; ordering)',
  'iclock/api/terminals': 'Terminals (filters sn, alias, area, state)',
  'personnel/api/employees': "Employees: the location's users (filters emp_code, first_name, last_name, department, areas)",
  'personnel/api/departments': 'Departments users carry',
  'personnel/api/positions': 'Positions users carry',
  'personnel/api/areas': "The location's areas",
};

const PAGING = [
  { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
  { name: 'page_size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 10 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 }, description: 'The same as page_size' },
];

export function biotimeOpenApi(routes: readonly BiotimeRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const signIn = (jwt: boolean) => ({
    post: {
      operationId: jwt ? 'biotimeJwtLogin' : 'biotimeTokenLogin',
      summary: jwt ? 'Sign in: a JWT (exp after BIOGATE_BIOTIME_JWT_TTL_S)' : 'Sign in: the token to send as `Authorization: Token …`',
      description: 'username: the location id or the token label; password: a location token (bg_…).',
      tags: [TAG],
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['username', 'password'],
              properties: { username: { type: 'string' }, password: { type: 'string' } },
            },
          },
        },
      },
      responses: {
        200: { description: 'Signed in', ...jsonOf({ type: 'object', required: ['token'], properties: { token: { type: 'string' } } }) },
        400: { description: 'Unable to log in with provided credentials', ...jsonOf(fieldErrorBody) },
      },
    },
  });
  paths['/biotime/api-token-auth/'] = signIn(false);
  paths['/biotime/jwt-api-token-auth/'] = signIn(true);
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    const resource = path.replace('/biotime/', '').replace(/\/\{id\}\/$|\/$/g, '');
    const detailPath = path.includes('{id}');
    const name = resource.split('/').at(-1) as string;
    const ok: Record<string, unknown> =
      r.method === 'DELETE'
        ? { 204: { description: 'Deleted' } }
        : {
            [r.method === 'POST' ? 201 : 200]: {
              description: 'Success',
              ...jsonOf(detailPath || r.method !== 'GET' ? { type: 'object' } : listOf),
            },
          };
    (paths[path] ??= {})[r.method.toLowerCase()] = {
      operationId: `biotime_${r.method.toLowerCase()}_${name}${detailPath ? '_item' : ''}`,
      summary: `${r.method} ${SUMMARIES[resource] ?? resource}`,
      tags: [TAG],
      security: SECURITY,
      parameters: [
        ...(detailPath ? [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }] : []),
        ...(r.method === 'GET' && !detailPath ? PAGING : []),
      ],
      ...(r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH'
        ? { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } } }
        : {}),
      responses: {
        ...ok,
        400: { description: 'Field errors', ...jsonOf(fieldErrorBody) },
        401: { description: 'Authentication credentials were not provided / invalid', ...jsonOf(detailBody) },
        403: { description: 'A read token writing', ...jsonOf(detailBody) },
        404: { description: 'Not found', ...jsonOf(detailBody) },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'BioGate: the BioTime-compatible API',
      version: packageVersion(),
      description:
        'ZKBio Time (BioTime) 8.5–9.x shapes under /biotime/, for connectors written against BioTime: page-number paging in the ' +
        '`{count, next, previous, msg, code, data}` envelope, Django REST framework error bodies, `Token` and `JWT` sign-in with a ' +
        "location token. Records are the location's: punches, terminals, users as employees, areas, departments and positions. " +
        "Off with BIOGATE_BIOTIME_API=off. BioGate's own API: /api/openapi.json.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags: [{ name: TAG, description: 'The BioTime-compatible API' }],
    paths,
    components: {
      securitySchemes: {
        BiotimeToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`Token <location token>` (POST /biotime/api-token-auth/)',
        },
        BiotimeJwt: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`JWT <token>` (POST /biotime/jwt-api-token-auth/)',
        },
      },
    },
  };
}
