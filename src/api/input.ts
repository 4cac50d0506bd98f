/**
 * Reading request input: JSON bodies (400 when not JSON), query strings and path
 * params converted by their schema (so `?limit=5` is the integer 5), and
 * validation with every problem listed in one 422 [API-CONTRACT §3].
 */
import type { TSchema } from 'typebox';
import { BioGateError } from '../errors.js';
import type { HttpRequest } from '../http/types.js';
import { compiled, issuesFrom } from '../validation.js';

/**
 * Deepest nesting of arrays/objects an API body may have. Real bodies need under 10
 * levels; a hostile one 100,000 levels deep would later overflow the stack of every
 * recursive walk (validation, structuredClone, JSON.stringify of the answer).
 */
export const MAX_JSON_DEPTH = 64;

export function readJsonBody(req: HttpRequest, required: boolean): unknown {
  if (req.body.length === 0) {
    if (required) throw new BioGateError('BAD_REQUEST', 'A JSON body is required');
    return undefined;
  }
  if (jsonDepthExceeds(req.body, MAX_JSON_DEPTH)) {
    throw new BioGateError('BAD_REQUEST', `Body nests JSON arrays/objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new BioGateError('BAD_REQUEST', 'Body is not valid JSON');
  }
}

/**
 * Whether the JSON text nests `[`/`{` deeper than `max`, found by one iterative pass over
 * the bytes (no recursion, so any depth is safe), skipping string contents. Bytes of UTF-8
 * multi-byte characters are all >= 0x80, so they never look like brackets or quotes.
 * Malformed text is left for JSON.parse to reject.
 */
export function jsonDepthExceeds(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
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
