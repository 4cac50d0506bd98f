/**
 * Every object shape of the OpenAPI document as a named component (issue #38 item 5), so that generated clients get
 * the service description's names (`UserResponse`, `LocationBasic`, `UserPage`, …) instead of names they make up
 * from a path or a union member (`get_api_users_pin`, `CommandLocationType0`).
 *
 * Rules, in this order:
 * - a schema with a `title` (set on the TypeBox views: `UserResponse`, `LocationBasic`, …) is the component of that
 *   name, wherever it appears;
 * - any other object schema is named after where it is: its parent's name (without `Response`) and the property in
 *   PascalCase (`Location` › `scenario`: `LocationScenario`; an array property's items in the singular), an
 *   operation's answer `<OperationId>Result`, a request body's nested objects `<OperationId>Body<Property>`;
 * - a nullable object (`anyOf: [object, null]`) keeps its name: the union is not a type of its own; an enum is a
 *   component when it has a title (`ProtocolVersion`) or is a union's member (a nullable enum), else it stays inline;
 * - one name, one shape: two different shapes that would get the same name make the document fail to build (give
 *   one a title), and `test/api/openapi-names.test.ts` fails on two components of the same shape (a shape used in
 *   two places is a shared one: name it once, with a title).
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const pascal = (s: string): string =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** The name of one item of a collection called `name` (English plurals as the API uses them). */
function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('ses') || name.endsWith('xes')) return name.slice(0, -2);
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return name;
}

const firstProperty = (node: Json): string => (isObject(node['properties']) ? (Object.keys(node['properties'])[0] ?? '') : '');

const stem = (name: string): string => (name.endsWith('Response') && name !== 'Response' ? name.slice(0, -'Response'.length) : name);

/** Keywords whose value is a map of schemas, one schema, or a list of schemas [JSON Schema 2020-12 §10]. */
const SCHEMA_MAPS = ['properties', 'patternProperties'] as const;
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

export class ComponentNames {
  readonly schemas: Record<string, Json> = {};
  private readonly shapes = new Map<string, string>();
  private readonly records = new Map<string, { name: string; derived: boolean }>();

  /**
   * `node` with every object shape in it replaced by a `$ref` to its component. `base` names an untitled object;
   * `hoist: false` keeps the root itself inline (a request body) while naming what is inside it; `member`: `node` is
   * one of a union's members.
   */
  name(node: unknown, base: string, hoist = true, member = false): unknown {
    if (!isObject(node)) return node;
    const own = typeof node['title'] === 'string' ? node['title'] : base;
    const inner = stem(own);
    const out: Json = { ...node };
    for (const key of SCHEMA_MAPS) {
      const map = node[key];
      if (isObject(map))
        out[key] = Object.fromEntries(
          Object.entries(map).map(([p, s]) => [p, this.name(s, key === 'properties' ? `${inner}${pascal(p)}` : `${inner}Value`)]),
        );
    }
    for (const key of SCHEMA_LISTS) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      // One object among the members keeps the name; several are told apart by their first property (`{all}`, `{area_id}`).
      const objects = list.filter((m) => isObject(m) && m['type'] === 'object' && m['title'] === undefined).length;
      out[key] = list.map((m) => this.name(m, objects > 1 && isObject(m) ? `${own}${pascal(firstProperty(m))}` : own, true, true));
    }
    if (isObject(node['items'])) out['items'] = this.name(node['items'], singular(own));
    if (isObject(node['additionalProperties'])) out['additionalProperties'] = this.name(node['additionalProperties'], `${inner}Value`);
    // Objects; enums with a title, or inside a union (a nullable enum), which generators would otherwise name `…Type0`.
    const isEnum = Array.isArray(out['enum']) && (typeof node['title'] === 'string' || member);
    if (!hoist || (out['type'] !== 'object' && !isEnum)) return out;
    const { title: _title, ...shape } = out;
    const key = JSON.stringify(shape);
    const known = this.shapes.get(own);
    if (known !== undefined && known !== key)
      throw new Error(`OpenAPI: two different shapes are both named ${own}; give one of them its own title`);
    if (known === undefined) {
      this.shared(own, shape, typeof node['title'] !== 'string');
      this.shapes.set(own, key);
      this.schemas[own] = { title: own, ...shape };
    }
    return { $ref: `#/components/schemas/${own}` };
  }

  /**
   * A record shape (one with properties) named after its place must not repeat another component: a shape used in two
   * places is a shared one, to be defined once with a title. Two titled records may look alike (`LocationBasic`,
   * `AreaBasic`); free-form maps (no properties) are not shapes.
   */
  private shared(name: string, shape: Json, derived: boolean): void {
    if (!isObject(shape['properties'])) return;
    const { description: _description, ...bare } = shape;
    const key = JSON.stringify(bare);
    const other = this.records.get(key);
    if (other !== undefined && (derived || other.derived))
      throw new Error(`OpenAPI: ${name} and ${other.name} are the same shape; define it once, with a title, and use it in both places`);
    if (other === undefined || !derived) this.records.set(key, { name, derived });
  }
}
