/**
 * Reading request input: JSON bodies (400 when not JSON or nested too deep), query strings and
 * path params converted by their schema (so `?limit=5` is the integer 5). Validation itself is
 * src/validation/input.ts (`check`), shared with the other doors.
 */
import type { TSchema } from 'typebox';
import { BioGateError } from '../errors.js';
import type { HttpRequest } from '../http/types.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../validation/input.js';

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
