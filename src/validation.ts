/**
 * TypeBox errors → the 422 `detail` list [API-CONTRACT §3]: one issue per problem,
 * located by `loc` (starting with body/query/path), with a human message and a type.
 */
import type { Validator } from 'typebox/compile';
import type { TProperties, TSchema } from 'typebox';
import type { ValidationIssue } from './errors.js';

interface TypeBoxError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function pointerToLoc(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function describe(e: TypeBoxError, schemaAt: (path: string) => Record<string, unknown> | undefined): Pick<ValidationIssue, 'msg' | 'type'> {
  const p = e.params;
  switch (e.keyword) {
    case 'type':
      return { msg: `must be ${String(p['type']) === 'integer' ? 'an integer' : `a ${String(p['type'])}`}`, type: 'type_error' };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const s = schemaAt(e.schemaPath);
      if (s && typeof s['minimum'] === 'number' && typeof s['maximum'] === 'number') {
        return { msg: `must be between ${s['minimum']} and ${s['maximum']}`, type: 'range' };
      }
      return { msg: `must be ${String(p['comparison'])} ${String(p['limit'])}`, type: 'range' };
    }
    case 'minLength':
      return { msg: Number(p['limit']) === 1 ? 'must not be empty' : `must be at least ${String(p['limit'])} characters`, type: 'length' };
    case 'maxLength':
      return { msg: `must be at most ${String(p['limit'])} characters`, type: 'length' };
    case 'minItems':
      return { msg: `must have at least ${String(p['limit'])} items`, type: 'length' };
    case 'maxItems':
      return { msg: `must have at most ${String(p['limit'])} items`, type: 'length' };
    case 'pattern':
    case 'format': {
      const s = schemaAt(e.schemaPath);
      const hint = s && typeof s['description'] === 'string' ? s['description'] : `match ${String(p['pattern'] ?? p['format'])}`;
      return { msg: `must ${hint.startsWith('must ') ? hint.slice(5) : hint}`, type: 'format' };
    }
    case 'anyOf':
    case 'oneOf':
    case 'const':
    case 'enum': {
      const s = schemaAt(e.schemaPath);
      const options = s ? enumerate(s) : undefined;
      return options ? { msg: `must be one of ${options}`, type: 'enum' } : { msg: 'has an invalid value', type: 'value_error' };
    }
    default:
      return { msg: e.message, type: e.keyword };
  }
}

/** Lists the allowed values of a union of literals (and null), for enum messages. */
function enumerate(s: Record<string, unknown>): string | undefined {
  const members = (s['anyOf'] ?? s['oneOf']) as Record<string, unknown>[] | undefined;
  if ('const' in s) return JSON.stringify(s['const']);
  if (!members) return undefined;
  const parts: string[] = [];
  for (const m of members) {
    if ('const' in m) parts.push(JSON.stringify(m['const']));
    else if (m['type'] === 'null') parts.push('null');
    else if (m['anyOf']) {
      const inner = enumerate(m);
      if (!inner) return undefined;
      parts.push(inner);
    } else return undefined;
  }
  return parts.join(', ');
}

function resolver(schema: TSchema): (path: string) => Record<string, unknown> | undefined {
  return (path) => {
    let node: unknown = schema;
    for (const part of path.replace(/^#\/?/, '').split('/').filter(Boolean)) {
      if (typeof node !== 'object' || node === null) return undefined;
      node = (node as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    return typeof node === 'object' && node !== null ? (node as Record<string, unknown>) : undefined;
  };
}

/** Every problem of `value` against the compiled validator, located under `root`. */
export function issuesFrom(validator: Validator<TProperties, TSchema>, value: unknown, root: readonly (string | number)[]): ValidationIssue[] {
  if (validator.Check(value)) return [];
  const errors = [...validator.Errors(value)] as unknown as TypeBoxError[];
  const schemaAt = resolver(validator.Type());
  // A failed union reports every branch too; keep the union's own error only.
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath + '/');
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (unions.some((u) => e.schemaPath.startsWith(u))) continue;
    if (e.keyword === 'boolean') continue; // additionalProperties:false also reports a "schema is false" twin
    const base = pointerToLoc(e.instancePath);
    const produced: ValidationIssue[] = [];
    if (e.keyword === 'required') {
      for (const name of (e.params['requiredProperties'] as string[] | undefined) ?? []) {
        produced.push({ loc: [...root, ...base, name], msg: 'field required', type: 'missing' });
      }
    } else if (e.keyword === 'additionalProperties') {
      for (const name of (e.params['additionalProperties'] as string[] | undefined) ?? []) {
        produced.push({ loc: [...root, ...base, name], msg: 'unknown field', type: 'extra_forbidden' });
      }
    } else {
      produced.push({ loc: [...root, ...base], ...describe(e, schemaAt) });
    }
    for (const issue of produced) {
      const key = JSON.stringify(issue.loc) + issue.type;
      if (seen.has(key)) continue;
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues;
}
