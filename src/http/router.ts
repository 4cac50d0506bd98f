/** Path routing with `:params` and a trailing `*`; tells 404 from 405. */
import type { Handler, HttpMethod, Route } from './types.js';

interface Compiled {
  readonly route: Route;
  readonly segments: readonly string[];
  readonly wildcard: boolean;
  /** Static segments beat params, params beat wildcards: /api/users/clear before /api/users/:pin. */
  readonly score: number;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string>; handler: Handler }
  | { kind: 'method-not-allowed'; allowed: HttpMethod[] }
  | { kind: 'not-found' };

const split = (path: string): string[] => path.split('/').filter((s) => s.length > 0);
/** The group of routes whose first segment is a parameter, or that have none: looked at for every path. */
const ANY_FIRST = ':';
const NONE: readonly Compiled[] = [];
/** Most remembered answers for paths without parameters (device endpoints, /api/me …): bounded whatever clients send. */
const REMEMBERED = 512;

export class Router {
  readonly #routes: Compiled[] = [];
  /** Routes by their first segment: a request looks only at those that can match, never at every route. */
  readonly #byFirst = new Map<string, Compiled[]>();
  /**
   * Answers for `method path` where no `:param` took part: the same few paths come again and again
   * (a terminal's poll, a dashboard's /api/me). A path with a parameter (a PIN, a serial) is matched
   * every time, so what clients choose cannot fill this; it is emptied when full.
   */
  readonly #remembered = new Map<string, RouteMatch>();

  add(route: Route): void {
    const segments = split(route.pattern);
    const wildcard = segments.at(-1) === '*';
    if (wildcard) segments.pop();
    const score = segments.reduce((s, seg) => s + (seg.startsWith(':') ? 1 : 2), 0) - (wildcard ? 1 : 0);
    const compiled: Compiled = { route, segments, wildcard, score };
    this.#routes.push(compiled);
    this.#remembered.clear();
    const first = segments[0] === undefined || segments[0].startsWith(':') ? ANY_FIRST : segments[0];
    const group = this.#byFirst.get(first);
    if (group) group.push(compiled);
    else this.#byFirst.set(first, [compiled]);
  }

  list(): readonly Route[] {
    return this.#routes.map((c) => c.route);
  }

  match(method: HttpMethod, path: string): RouteMatch {
    const key = `${method} ${path}`;
    const known = this.#remembered.get(key);
    if (known) return known;
    const found = this.#match(method, path);
    if (found.kind !== 'found' || found.route.pattern.includes(':') || (found.params['*'] ?? '').length > 64) return found;
    if (this.#remembered.size >= REMEMBERED) this.#remembered.clear();
    Object.freeze(found.params); // shared by every request of this path
    this.#remembered.set(key, found);
    return found;
  }

  #match(method: HttpMethod, path: string): RouteMatch {
    const parts = split(path);
    const allowed: HttpMethod[] = [];
    let best: { c: Compiled; params: Record<string, string> } | undefined;
    const first = parts[0];
    for (const group of [first === undefined ? NONE : (this.#byFirst.get(first) ?? NONE), this.#byFirst.get(ANY_FIRST) ?? NONE]) {
      for (const c of group) {
        const params = matchSegments(c, parts);
        if (!params) continue;
        const methodOk = c.route.method === method || (method === 'HEAD' && c.route.method === 'GET');
        if (!methodOk) {
          allowed.push(c.route.method);
          continue;
        }
        if (!best || c.score > best.c.score) best = { c, params };
      }
    }
    if (best) return { kind: 'found', route: best.c.route, params: best.params, handler: best.c.route.handler };
    if (allowed.length > 0) return { kind: 'method-not-allowed', allowed: [...new Set(allowed)] };
    return { kind: 'not-found' };
  }
}

function matchSegments(c: Compiled, parts: readonly string[]): Record<string, string> | undefined {
  if (c.wildcard ? parts.length < c.segments.length : parts.length !== c.segments.length) return undefined;
  // The static segments first: most routes are ruled out without allocating.
  for (let i = 0; i < c.segments.length; i++) {
    const seg = c.segments[i] as string;
    if (!seg.startsWith(':') && seg !== parts[i]) return undefined;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < c.segments.length; i++) {
    const seg = c.segments[i] as string;
    if (!seg.startsWith(':')) continue;
    try {
      params[seg.slice(1)] = decodeURIComponent(parts[i] as string);
    } catch {
      return undefined;
    }
  }
  if (c.wildcard) params['*'] = parts.slice(c.segments.length).join('/');
  return params;
}
