/**
 * /api/users/{pin}/templates (issue #35 item 5), full scope only (template bytes are biometric data):
 * - GET: the user's templates with their bytes, slot by slot;
 * - PUT …/{type}/{index}: stores one (src/users/templates.ts), which then reaches the user's terminals;
 * - DELETE …/{type}/{index}: removes the slot here and on the terminals.
 */
import { Type } from 'typebox';
import { requireFull } from '../auth/authenticate.js';
import {
  deleteTemplate,
  listTemplates,
  putTemplate,
  templateInputOf,
  TemplateIndex,
  TemplateLine,
  templateLine,
  TemplateType,
  TemplateWrite,
  type TemplateDeps,
} from '../users/templates.js';
import { Pin } from '../users/schemas.js';
import { IsoDateTime, Nullable } from '../views/common.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { EmptyObject } from './schemas.js';

const tags = ['users'];
const SlotParams = Type.Object({ pin: Pin, type: TemplateType, index: TemplateIndex });
const StoredTemplate = Type.Object(
  {
    ...TemplateLine.properties,
    size: Type.Integer({ description: 'Characters of base64' }),
    source_sn: Nullable(Type.String({ description: 'The terminal it was enrolled on; null when written through the API or the CLI' })),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
  },
  { title: 'StoredTemplate' },
);
const TemplateList = Type.Object({ pin: Pin, templates: Type.Array(StoredTemplate) }, { title: 'UserTemplates' });

const stored = (t: Parameters<typeof templateLine>[0]) => ({
  ...templateLine(t),
  size: t.size,
  source_sn: t.source_sn,
  created_at: t.created_at,
  updated_at: t.updated_at,
});

export function templateRoutes(deps: TemplateDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/users/{pin}/templates',
      auth: 'location',
      params: Type.Object({ pin: Pin }),
      doc: {
        summary: "A user's biometric templates with their bytes (full scope)",
        description:
          'Ordered by type, index and template_index. Each carries the fields `PUT` takes, so a list can be written back elsewhere ' +
          '(or use `biogate templates export`).',
        tags,
        responses: { 200: TemplateList },
        errors: ['SCOPE_DENIED', 'USER_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller, 'Reading templates');
        const templates = await listTemplates(deps.store, caller.location, params.pin);
        return json(200, { pin: params.pin, templates: templates.map(stored) });
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/users/{pin}/templates/{type}/{index}',
      auth: 'location',
      params: SlotParams,
      body: TemplateWrite,
      doc: {
        summary: 'Store one biometric template of a user (full scope); it reaches the terminals that hold the user',
        description:
          '`type` is the biometric type [1 fingerprint, 2 near-infrared face, 6 palm print, 7 finger vein, 8 palm vein, 9 visible-light ' +
          'face, 10 visible-light palm]; `index` its number (finger 0–9 in the terminals’ numbering, 0–11 for a near-infrared face, else ' +
          '0–15). A terminal receives it when its algorithm version matches `major_ver`. 201 for a new slot part, 200 when it replaced one. ' +
          `At most 64 templates a user (429 QUOTA_EXCEEDED).`,
        tags,
        responses: { 201: StoredTemplate, 200: StoredTemplate },
        errors: ['SCOPE_DENIED', 'USER_NOT_FOUND', 'QUOTA_EXCEEDED'],
      },
      handler: async ({ caller, params, body }) => {
        requireFull(caller, 'Writing templates');
        const { template, created } = await putTemplate(
          deps,
          caller.location,
          templateInputOf(params.pin, params.type, params.index, body, ['path']),
        );
        return json(created ? 201 : 200, stored(template));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/users/{pin}/templates/{type}/{index}',
      auth: 'location',
      params: SlotParams,
      doc: {
        summary: 'Delete one biometric template slot of a user (full scope), here and on the terminals',
        description: 'Every part (`template_index`) of the slot goes; the terminals that hold the user delete it as a revocation.',
        tags,
        responses: { 200: EmptyObject },
        errors: ['SCOPE_DENIED', 'USER_NOT_FOUND', 'TEMPLATE_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller, 'Deleting templates');
        await deleteTemplate(deps, caller.location, params.pin, params.type, params.index);
        return json(200, {});
      },
    }),
  ];
}
