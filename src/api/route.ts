/**
 * An API route is data: method, OpenAPI-style path, schemas, and a handler.
 * The same definitions feed the router, the validators and the OpenAPI document,
 * so the document cannot drift from what the server does.
 */
import type { Static, TSchema } from 'typebox';
import type { Caller } from '../auth/authenticate.js';
import type { HttpMethod, HttpRequest, HttpResponse } from '../http/types.js';

export type Auth = 'location' | 'admin' | 'none';

export interface RouteDoc {
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** Status → response schema (null = no body). Error statuses come from `errors`. */
  readonly responses: Readonly<Record<number, TSchema | null>>;
  /** Error codes this operation can answer with (besides auth/validation, added automatically). */
  readonly errors?: readonly string[];
  /** A request body that is not JSON: its media types (the handler reads `req.body`; no `body` schema). */
  readonly requestMedia?: readonly string[];
  /** The media type of a success body that is not JSON (its response schema is `null`). */
  readonly responseMedia?: string;
}

export interface ApiContext<P, Q, B> {
  readonly req: HttpRequest;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Set on location-authenticated routes. */
  readonly caller: Caller;
}

export interface ApiRoute<PS extends TSchema = TSchema, QS extends TSchema = TSchema, BS extends TSchema = TSchema> {
  readonly method: HttpMethod;
  /** OpenAPI form: `/api/users/{pin}`. */
  readonly path: string;
  readonly auth: Auth;
  readonly params?: PS;
  readonly query?: QS;
  /** Body schema; `bodyRequired: false` lets an empty body through as undefined. */
  readonly body?: BS;
  readonly bodyRequired?: boolean;
  /** 'raw': the body is parsed and its top-level type checked, but items are validated by the handler (per-item errors). */
  readonly bodyMode?: 'validate' | 'raw';
  /** Writes need a non-read token. Defaults to true for every method but GET/HEAD. */
  readonly write?: boolean;
  readonly doc: RouteDoc;
  readonly handler: (ctx: ApiContext<Static<PS>, Static<QS>, Static<BS>>) => Promise<HttpResponse> | HttpResponse;
}

export function defineRoute<PS extends TSchema, QS extends TSchema, BS extends TSchema>(route: ApiRoute<PS, QS, BS>): ApiRoute {
  return route as unknown as ApiRoute;
}

export const routerPattern = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

export const json = (status: number, body: unknown, headers?: Record<string, string>): HttpResponse =>
  headers ? { status, body: body as object, headers } : { status, body: body as object };
