/**
 * BioTime's list envelope and page-number paging (DRF's PageNumberPagination as BioTime configures it):
 * `page` from 1, `page_size` (default 10, at most 1000; `limit` is the 8.5 manual's name for it), and
 * `next`/`previous` as absolute URLs that keep every other query parameter, with `page` last (connectors
 * split `next` on `page=`).
 */
import type { HttpRequest } from '../http/types.js';
import type { Window } from '../store/ports/index.js';
import { detail, fieldError } from './shapes.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 1000;

export interface PageRequest {
  readonly page: number;
  readonly size: number;
  readonly window: Window;
}

/** A whole-number query parameter from `min` (default 1), or undefined when absent; garbage is the field's 400. */
export function positiveInt(req: HttpRequest, name: string, min = 1, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw fieldError(name, `A whole number from ${min} to ${max} is required.`);
  return Number(raw);
}

export function pageOf(req: HttpRequest): PageRequest {
  const size = Math.min(positiveInt(req, 'page_size') ?? positiveInt(req, 'limit') ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const raw = req.query.get('page');
  // DRF: a page that is not a number, or past the last, is a 404 "Invalid page."
  if (raw !== null && raw !== '' && !/^\d{1,9}$/.test(raw)) throw detail(404, 'Invalid page.');
  const page = raw === null || raw === '' ? 1 : Number(raw);
  if (page < 1) throw detail(404, 'Invalid page.');
  return { page, size, window: { offset: (page - 1) * size, limit: size } };
}

/**
 * The envelope of one page of `total` items. A page past the last (other than the first of none) is a 404.
 * `secure`: the listener speaks TLS (the scheme of `next` unless a proxy names another).
 */
export function envelope<T>(req: HttpRequest, secure: boolean, p: PageRequest, total: number, data: readonly T[]) {
  const pages = Math.max(1, Math.ceil(total / p.size));
  if (p.page > pages) throw detail(404, 'Invalid page.');
  return {
    count: total,
    next: p.page < pages ? pageUrl(req, secure, p.page + 1) : null,
    previous: p.page > 1 ? pageUrl(req, secure, p.page - 1) : null,
    msg: '',
    code: 0,
    data,
  };
}

/** The list's own URL with `page` set (`previous` of page 2 leaves it out, as DRF does). */
function pageUrl(req: HttpRequest, secure: boolean, page: number): string {
  const query = new URLSearchParams(req.query);
  query.delete('page');
  if (page > 1) query.append('page', String(page));
  const text = query.toString();
  return `${origin(req, secure)}${req.path}${text ? `?${text}` : ''}`;
}

/**
 * The scheme and host the client reached: a proxy's `X-Forwarded-Proto`/`X-Forwarded-Host` when sent,
 * else the Host header (the URL is only ever given back to the caller that sent them).
 */
function origin(req: HttpRequest, secure: boolean): string {
  const forwardedProto = req.headers['x-forwarded-proto']?.split(',')[0]?.trim();
  const proto = forwardedProto === 'http' || forwardedProto === 'https' ? forwardedProto : secure ? 'https' : 'http';
  const host = (req.headers['x-forwarded-host']?.split(',')[0] ?? req.headers['host'] ?? 'localhost').trim();
  return `${proto}://${/^[A-Za-z0-9.:[\]-]{1,255}$/.test(host) ? host : 'localhost'}`;
}
