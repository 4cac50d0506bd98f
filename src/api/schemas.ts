/** Schemas of the REST API itself: the error body, pages and their query (record views are src/views/). */
import { Type, type TSchema } from 'typebox';

export const ErrorBody = Type.Object({
  detail: Type.Union([
    Type.String(),
    Type.Array(Type.Object({ loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() })),
  ]),
  code: Type.String(),
  error_id: Type.Optional(Type.String({ description: 'On 500 only: the id of the logged error, for the operator' })),
});

export const EmptyObject = Type.Object({}, { description: 'Empty JSON object' });

export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    total_pages: Type.Integer(),
    has_next: Type.Boolean(),
    has_prev: Type.Boolean(),
  });

/** Highest page number: (page - 1) × limit must stay an exact integer offset for every store. */
export const PAGE_MAX = 1_000_000_000;

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 15 }),
};

export function pageWrapper<T>(items: readonly T[], total: number, page: number, limit: number) {
  const total_pages = Math.ceil(total / limit);
  return { data: items, total, page, limit, total_pages, has_next: page < total_pages, has_prev: page > 1 };
}
