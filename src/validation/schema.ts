/**
 * TypeBox errors → the 422 `detail` list [API-CONTRACT §3]: one issue per problem,
 * located by `loc` (starting with body/query/path), with a human message and a type.
 */
import { Compile, type Validator } from 'typebox/compile';
import type { TProperties, TSchema } from 'typebox';
import type { ValidationIssue } from '../errors.js';

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
  // A schema may name the exact text its failure must show (the catalog does, per [COMMANDS §3.3]).
  const own = schemaAt(e.schemaPath)?.['errorMessage'];
  if (typeof own === 'string' && e.keyword !== 'required' && e.keyword !== 'additionalProperties')
    return { msg: own, type: e.keyword === 'type' ? 'type_error' : 'value_error' };
  switch (e.keyword) {
    case 'type':
      return { msg: `must be ${article(String(p['type']))}`, type: 'type_error' };
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
      const what = s && typeof s['description'] === 'string' ? s['description'] : `match ${String(p['pattern'] ?? p['format'])}`;
      return { msg: `has an invalid format (expected: ${what})`, type: 'format' };
    }
    case 'anyOf':
    case 'oneOf':
    case 'const':
    case 'enum':
      return unionProblem(schemaAt(e.schemaPath));
    default:
      return { msg: e.message, type: e.keyword };
  }
}

/** A value no member of a union (or no literal) accepts: the allowed values, else the union's description. */
function unionProblem(s: Record<string, unknown> | undefined): Pick<ValidationIssue, 'msg' | 'type'> {
  const options = s ? enumerate(s) : undefined;
  if (options) return { msg: `must be one of ${options}`, type: 'enum' };
  const what = s && typeof s['description'] === 'string' ? ` (expected: ${s['description']})` : '';
  return { msg: `has an invalid value${what}`, type: 'value_error' };
}

/** "an integer", "an object", "a string"; `null` stays bare. */
function article(type: string): string {
  if (type === 'null') return 'null';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
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
export function issuesFrom(
  validator: Validator<TProperties, TSchema>,
  value: unknown,
  root: readonly (string | number)[],
): ValidationIssue[] {
  if (validator.Check(value)) return [];
  return walk(validator.Type(), value, root);
}

type Node = Record<string, unknown> & { properties?: Record<string, TSchema>; required?: string[]; anyOf?: TSchema[]; items?: TSchema };

/**
 * TypeBox stops after a handful of errors, so objects and arrays are walked here
 * and each leaf validated on its own: a body with ten problems gets ten issues.
 */
function walk(schema: TSchema, value: unknown, loc: readonly (string | number)[]): ValidationIssue[] {
  const node = schema as unknown as Node;
  if (node['type'] === 'object' && node.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const issues: ValidationIssue[] = [];
    for (const name of node.required ?? [])
      if (!(name in record)) issues.push({ loc: [...loc, name], msg: 'field required', type: 'missing' });
    for (const [name, sub] of Object.entries(node.properties)) {
      if (name in record && record[name] !== undefined && !compiled(sub).Check(record[name]))
        issues.push(...walk(sub, record[name], [...loc, name]));
    }
    if (node['additionalProperties'] === false) {
      for (const name of Object.keys(record))
        if (!(name in node.properties)) issues.push({ loc: [...loc, name], msg: 'unknown field', type: 'extra_forbidden' });
    }
    if (issues.length > 0) return issues;
  }
  if (node['type'] === 'array' && node.items && Array.isArray(value)) {
    const issues: ValidationIssue[] = [];
    const items = node.items;
    value.forEach((item, i) => {
      if (issues.length < 100 && !compiled(items).Check(item)) issues.push(...walk(items, item, [...loc, i]));
    });
    const own = leaf(schema, value, loc).filter((x) => x.loc.length === loc.length);
    if (issues.length + own.length > 0) return [...own, ...issues];
  }
  // A nullable field that is not null: report why its real type failed.
  if (node.anyOf && value !== null) {
    const real = node.anyOf.filter((m) => (m as unknown as Node)['type'] !== 'null');
    if (real.length === 1 && real.length < node.anyOf.length) return walk(real[0] as TSchema, value, loc);
  }
  return leaf(schema, value, loc);
}

function leaf(schema: TSchema, value: unknown, root: readonly (string | number)[]): ValidationIssue[] {
  const validator = compiled(schema);
  // A union is one problem. TypeBox caps its error list, so for a union of many literals the
  // branch errors ("must be a number", one per member) can crowd out the union's own error.
  const own = schema as unknown as Node;
  if ((own.anyOf || own['oneOf']) && !validator.Check(value)) return [{ loc: [...root], ...unionProblem(own) }];
  const errors = [...validator.Errors(value)] as unknown as TypeBoxError[];
  const schemaAt = resolver(schema);
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
      // One issue per place: an empty string that also fails a pattern is "must not be empty" only.
      const key = JSON.stringify(issue.loc);
      if (seen.has(key)) continue;
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues;
}

const cache = new WeakMap<TSchema, Validator<TProperties, TSchema>>();
/** Compiled validators, cached per schema object. */
export function compiled(schema: TSchema): Validator<TProperties, TSchema> {
  let v = cache.get(schema);
  if (!v) cache.set(schema, (v = Compile(schema) as unknown as Validator<TProperties, TSchema>));
  return v;
}
