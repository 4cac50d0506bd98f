/**
 * Reading a BioTime write body: a JSON object, or a form (some connectors post forms). Field problems are
 * DRF's `{"field": ["message"]}` 400s, so a client shows them next to the field it sent.
 */
import type { HttpRequest } from '../http/types.js';
import { fieldError, fieldErrors } from './shapes.js';

export function readBody(req: HttpRequest): Record<string, unknown> {
  const raw = req.body.toString('utf8');
  if ((req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(raw));
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw fieldErrors({ detail: ['JSON parse error.'] });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw fieldErrors({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
  return parsed as Record<string, unknown>;
}

/** A string field (trimmed), at most `max` characters; absent or null is undefined unless `required`. */
export function text(body: Record<string, unknown>, key: string, max: number, required: boolean): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') {
    if (required) throw fieldError(key, 'This field is required.');
    return undefined;
  }
  if (typeof value !== 'string' && typeof value !== 'number') throw fieldError(key, 'Not a valid string.');
  const s = String(value).trim();
  if (s.length > max) throw fieldError(key, `Ensure this field has no more than ${max} characters.`);
  if (required && s === '') throw fieldError(key, 'This field may not be blank.');
  return s === '' ? undefined : s;
}
