/**
 * The console's only way to the gateway: the public REST API, with the operator's token in the
 * Authorization header (never in a URL, a cookie or localStorage: sessionStorage only, so the token
 * dies with the tab).
 */
import type { ErrorBody, Location, Me, Problem } from './api-types.js';
import { t } from './i18n/index.js';

export type Session =
  { readonly kind: 'location'; readonly token: string; readonly me: Me } | { readonly kind: 'admin'; readonly token: string };

const STORAGE_KEY = 'biogate.console.session';
/** Fired on window when the session's own token gets a 401. */
export const UNAUTHORIZED_EVENT = 'biogate:unauthorized';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** An API error body `{detail, code}` made readable: a 422 lists every problem as "field: message". */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function describeDetail(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    // Read defensively: the body comes off the network, whatever the document promises.
    return (detail as Partial<Problem>[])
      .map((p) => {
        const where = (p.loc ?? []).filter((part, i) => !(i === 0 && (part === 'body' || part === 'query' || part === 'path'))).join('.');
        return where ? `${where}: ${p.msg ?? t('request.invalid')}` : (p.msg ?? t('request.invalid'));
      })
      .join('; ');
  }
  return t('request.failed');
}

async function failure(res: Response): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as Partial<ErrorBody>;
    if (body.code) code = body.code;
    if (body.detail !== undefined) message = describeDetail(body.detail);
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, code, message);
}

export async function request(token: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  if (!res.ok) {
    const err = await failure(res);
    // The signed-in token stopped working (revoked, expired): the app signs out and says why.
    if (res.status === 401 && token === loadSession()?.token) dispatchEvent(new CustomEvent(UNAUTHORIZED_EVENT, { detail: err.message }));
    throw err;
  }
  return res;
}

export async function api<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  return (await (await request(token, method, path, body)).json()) as T;
}

/** Query string from the non-empty values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Downloads a file the API serves (attendance CSV) with the token in the header, then saves it
 * from a Blob: a plain link would need the token in the URL, where proxies and history keep it.
 */
export async function download(token: string, path: string, fallbackName: string): Promise<{ name: string; size: number }> {
  const res = await fetch(path, { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store', credentials: 'omit' });
  if (!res.ok) throw await failure(res);
  const blob = await res.blob();
  const disposition = res.headers.get('Content-Disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return { name, size: blob.size };
}

/** Who the token is: a location token answers /api/me; otherwise the admin API is tried. */
export async function signIn(token: string): Promise<Session> {
  try {
    const me = await api<Me>(token, 'GET', '/api/me');
    return { kind: 'location', token, me };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401) throw err;
  }
  try {
    await api<Location[]>(token, 'GET', '/admin/locations');
    return { kind: 'admin', token };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new ApiError(401, 'UNAUTHORIZED', t('signIn.notHere'));
    if (err instanceof ApiError && err.status === 401) throw new ApiError(401, 'UNAUTHORIZED', t('signIn.invalid'));
    throw err;
  }
}
