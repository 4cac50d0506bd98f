/**
 * `GET /biotime/personnel/api/areas/`, `departments/`, `positions/` (and `…/{id}/`); `POST departments/`
 * and `positions/`. Areas are BioGate's areas (`area_code` is the id: they have no code of their own);
 * departments and positions are the names users carry (`department`, `position` on a user), stored
 * with a code so an employee can name one by id as BioTime clients do.
 */
import type { Clock } from '../clock.js';
import type { HttpRequest } from '../http/types.js';
import type { OrgKind, OrgName } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { readBody, text } from './body.js';
import { envelope, pageOf } from './paging.js';
import { idOf, PREFIX, type BiotimeRoute } from './route.js';
import { fieldErrors, notFound } from './shapes.js';

/** BioTime's field names of each kind: `dept_code`/`dept_name`/`parent_dept`, `position_…`. */
const KEYS: Readonly<Record<OrgKind, { code: string; name: string; parent: string; path: string }>> = {
  department: { code: 'dept_code', name: 'dept_name', parent: 'parent_dept', path: 'departments' },
  position: { code: 'position_code', name: 'position_name', parent: 'parent_position', path: 'positions' },
};

/** The longest name or code (a user's department or position). */
export const MAX_ORG_NAME = 100;

export const orgView = (o: OrgName) => {
  const k = KEYS[o.kind];
  return { id: o.id, [k.code]: o.code, [k.name]: o.name, [k.parent]: null };
};

/** The whole list of a kind (a location keeps few), filtered by exact code or name as BioTime's filters do. */
async function orgList(store: Store, locationId: number, kind: OrgKind, req: HttpRequest, secure: boolean) {
  const p = pageOf(req);
  const k = KEYS[kind];
  const code = req.query.get(k.code) || undefined;
  const name = req.query.get(k.name) || undefined;
  const page = await store.orgNames.list(locationId, kind, { ...(code ? { code } : {}), ...(name ? { name } : {}) }, p.window);
  return envelope(req, secure, p, page.total, page.items.map(orgView));
}

export function orgRoutes(deps: { store: Store; clock: Clock; secure: boolean }): BiotimeRoute[] {
  const { store } = deps;
  const routes: BiotimeRoute[] = [];
  for (const kind of ['department', 'position'] as const) {
    const k = KEYS[kind];
    const path = `${PREFIX}/personnel/api/${k.path}/`;
    routes.push(
      {
        method: 'GET',
        path,
        handler: async (req, caller) => ({ status: 200, body: await orgList(store, caller.location.id, kind, req, deps.secure) }),
      },
      {
        method: 'GET',
        path: `${path}:id/`,
        handler: async (req, caller) => {
          const id = idOf(req);
          const found = id === undefined ? undefined : await store.orgNames.get(caller.location.id, kind, id);
          if (!found) throw notFound();
          return { status: 200, body: orgView(found) };
        },
      },
      {
        method: 'POST',
        path,
        handler: async (req, caller) => {
          const body = readBody(req);
          const name = text(body, k.name, MAX_ORG_NAME, true) as string;
          const code = text(body, k.code, MAX_ORG_NAME, false) ?? name;
          const clash = await store.orgNames.list(caller.location.id, kind, { name }, { offset: 0, limit: 1 });
          if (clash.total > 0) throw fieldErrors({ [k.name]: [`${kind} with this ${k.name} already exists.`] });
          const made = await store.orgNames.ensure(caller.location.id, kind, name, deps.clock.now().toISOString(), code);
          return { status: 201, body: orgView(made) };
        },
      },
    );
  }
  const areas = `${PREFIX}/personnel/api/areas/`;
  const areaView = (a: { id: number; name: string }) => ({ id: a.id, area_code: String(a.id), area_name: a.name, parent_area: null });
  routes.push(
    {
      method: 'GET',
      path: areas,
      handler: async (req, caller) => {
        const p = pageOf(req);
        const code = req.query.get('area_code');
        const name = req.query.get('area_name');
        const all = [...(await store.areas.names(caller.location.id))]
          .map(([id, n]) => ({ id, name: n }))
          .sort((a, b) => a.id - b.id)
          .filter((a) => (!code || String(a.id) === code) && (!name || a.name === name));
        const start = p.window.offset;
        return { status: 200, body: envelope(req, deps.secure, p, all.length, all.slice(start, start + p.size).map(areaView)) };
      },
    },
    {
      method: 'GET',
      path: `${areas}:id/`,
      handler: async (req, caller) => {
        const id = idOf(req);
        const name = id === undefined ? undefined : (await store.areas.names(caller.location.id)).get(id);
        if (id === undefined || name === undefined) throw notFound();
        return { status: 200, body: areaView({ id, name }) };
      },
    },
  );
  return routes;
}
