/** Path routing with `:params` and a trailing `*`; tells 404 from 405. */
import type { Handler, HttpMethod, Route } from './types.js';

interface Compiled {
  readonly route: Route;
  readonly segments: readonly string[];
  readonly wildcard: boolean;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string>; handler: Handler }
  | { kind: 'method-not-allowed'; allowed: HttpMethod[] }
  | { kind: 'not-found' };

const split = (path: string): string[] => path.split('/').filter((s) => s.length > 0);

export class Router {
  readonly #routes: Compiled[] = [];

  add(route: Route): void {
    const segments = split(route.pattern);
    const wildcard = segments.at(-1) === '*';
    if (wildcard) segments.pop();
    this.#routes.push({ route, segments, wildcard });
  }

  list(): readonly Route[] {
    return this.#routes.map((c) => c.route);
  }

  match(method: HttpMethod, path: string): RouteMatch {
    const parts = split(path);
    const allowed: HttpMethod[] = [];
    let best: { c: Compiled; params: Record<string, string>; score: number } | undefined;
    for (const c of this.#routes) {
      const params = matchSegments(c, parts);
      if (!params) continue;
      // Static segments beat params, params beat wildcards: /api/users/clear before /api/users/:pin.
      const score = c.segments.reduce((s, seg) => s + (seg.startsWith(':') ? 1 : 2), 0) - (c.wildcard ? 1 : 0);
      const methodOk = c.route.method === method || (method === 'HEAD' && c.route.method === 'GET');
      if (!methodOk) {
        allowed.push(c.route.method);
        continue;
      }
      if (!best || score > best.score) best = { c, params, score };
    }
    if (best) return { kind: 'found', route: best.c.route, params: best.params, handler: best.c.route.handler };
    if (allowed.length > 0) return { kind: 'method-not-allowed', allowed: [...new Set(allowed)] };
    return { kind: 'not-found' };
  }
}

function matchSegments(c: Compiled, parts: readonly string[]): Record<string, string> | undefined {
  if (c.wildcard ? parts.length < c.segments.length : parts.length !== c.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < c.segments.length; i++) {
    const seg = c.segments[i] as string;
    const part = parts[i] as string;
    if (seg.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return undefined;
      }
      params[seg.slice(1)] = value;
    } else if (seg !== part) return undefined;
  }
  if (c.wildcard) params['*'] = parts.slice(c.segments.length).join('/');
  return params;
}
