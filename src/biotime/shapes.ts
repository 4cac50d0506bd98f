/**
 * The BioTime API's answers that are not records: Django REST framework's error bodies, which BioTime
 * clients read (`detail`, `non_field_errors`, one list of messages per field), and the mapping of
 * BioGate's own errors onto them. Everything a facade handler throws ends here.
 */
import { BioGateError } from '../errors.js';
import { HttpRefusal } from '../http/error-response.js';
import type { HttpResponse } from '../http/types.js';

/** `{"detail": …}` with a status: 401, 403, 404, 405, 429. */
export const detail = (status: number, text: string, headers?: Record<string, string>): HttpRefusal =>
  new HttpRefusal({ status, body: { detail: text }, ...(headers ? { headers } : {}) });

/** 400 with one list of messages per field, as DRF's serializers answer. */
export const fieldErrors = (errors: Readonly<Record<string, readonly string[]>>): HttpRefusal =>
  new HttpRefusal({ status: 400, body: errors });

export const fieldError = (field: string, message: string): HttpRefusal => fieldErrors({ [field]: [message] });

export const NOT_FOUND = 'Not found.';
export const notFound = (): HttpRefusal => detail(404, NOT_FOUND);

/** DRF's token and JWT authentication challenge: a 401 names the scheme to use. */
const CHALLENGE = { 'WWW-Authenticate': 'Token' };
export const unauthenticated = (text: string): HttpRefusal => detail(401, text, CHALLENGE);

/** A BioGate error in BioTime's shape: its status and headers (Retry-After), its sentence as `detail`. */
export function asBiotime(err: unknown, fields: Readonly<Record<string, string>> = {}): unknown {
  if (!(err instanceof BioGateError)) return err;
  if (typeof err.detail !== 'string') {
    // Validation issues: `loc` is ['body', field, …]; the field is named as the BioTime body names it.
    const out: Record<string, string[]> = {};
    for (const issue of err.detail) {
      const key = String(issue.loc[1] ?? 'non_field_errors');
      (out[fields[key] ?? key] ??= []).push(issue.msg);
    }
    return fieldErrors(out);
  }
  if (err.status === 401) return unauthenticated(err.detail === 'Token expired' ? 'Token expired.' : 'Invalid token.');
  return new HttpRefusal({ status: err.status, headers: err.headers, body: { detail: err.detail } });
}

/** Runs a handler and answers every refusal in BioTime's shape. */
export async function inBiotimeShape(
  fields: Readonly<Record<string, string>>,
  run: () => Promise<HttpResponse> | HttpResponse,
): Promise<HttpResponse> {
  try {
    return await run();
  } catch (err) {
    throw asBiotime(err, fields);
  }
}
