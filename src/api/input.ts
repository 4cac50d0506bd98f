/**
 * Reading request input: JSON bodies (400 when not JSON), query strings and path
 * params converted by their schema (so `?limit=5` is the integer 5), and
 * validation with every problem listed in one 422 [API-CONTRACT §3].
 */
import type { TSchema } from 'typebox';
import { BioGateError } from '../errors.js';
import type { HttpRequest } from '../http/types.js';
import { compiled, issuesFrom } from '../validation.js';

export function readJsonBody(req: HttpRequest, required: boolean): unknown {
  if (req.body.length === 0) {
    if (required) throw new BioGateError('BAD_REQUEST', 'A JSON body is required');
    return undefined;
  }
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new BioGateError('BAD_REQUEST', 'Body is not valid JSON');
  }
}

interface SchemaNode {
  type?: string | string[];
  anyOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
}

function kinds(s: SchemaNode | undefined): Set<string> {
  const out = new Set<string>();
  if (!s) return out;
  if (typeof s.type === 'string') out.add(s.type);
  if (Array.isArray(s.type)) s.type.forEach((t) => out.add(t));
  s.anyOf?.forEach((m) => kinds(m).forEach((k) => out.add(k)));
  return out;
}

/** String → the schema's scalar type where the text clearly is one; otherwise left as text for the validator to reject. */
function coerce(text: string, schema: SchemaNode | undefined): unknown {
  const k = kinds(schema);
  if ((k.has('integer') || k.has('number')) && /^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text.trim());
  if (k.has('boolean')) {
    const t = text.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
  }
  if (k.has('null') && text === '' && !k.has('string')) return null;
  return text;
}

/** Query parameters named by the schema, converted; unknown names are ignored. */
export function readQuery(req: HttpRequest, schema: TSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const props = (schema as SchemaNode | undefined)?.properties ?? {};
  for (const [name, s] of Object.entries(props)) {
    const value = req.query.get(name);
    if (value !== null) out[name] = coerce(value, s);
  }
  return out;
}

export function readParams(req: HttpRequest, schema: TSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const props = (schema as SchemaNode | undefined)?.properties ?? {};
  for (const [name, value] of Object.entries(req.params)) out[name] = coerce(value, props[name]);
  return out;
}

/** Validates and returns the value with schema defaults applied; throws one 422 listing every issue. */
export function check<T>(schema: TSchema, value: unknown, root: 'body' | 'query' | 'path'): T {
  const v = compiled(schema);
  // Defaults first: a field that is "required, default 1" is satisfied by its default.
  const withDefaults = value !== null && typeof value === 'object' ? v.Default(structuredClone(value)) : value;
  const issues = issuesFrom(v, withDefaults, [root]);
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
  return withDefaults as T;
}

/**
 * Whether `YYYY-MM-DD` is a day of the calendar. JavaScript's Date rolls impossible days
 * over (2026-02-30 becomes March 2), so a parse alone does not tell.
 */
export function isRealDate(ymd: string): boolean {
  const d = new Date(`${ymd}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === ymd;
}

/** An ISO 8601 date or datetime as an instant; undefined when it is not a real one (no rollover). */
export function instantOf(text: string): Date | undefined {
  const d = new Date(text);
  return Number.isNaN(d.getTime()) || !isRealDate(text.slice(0, 10)) ? undefined : d;
}
