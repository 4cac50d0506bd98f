/**
 * The error catalog is public contract (STYLE.md §5): stable UPPER_SNAKE codes,
 * one mapping to HTTP, and a table in src/api/ERRORS.md that matches the catalog.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { BioGateError, ERROR_CATALOG, errorTableMarkdown, invalid, toErrorResponse, type ErrorCode } from '../src/errors.js';

t.test('src/api/ERRORS.md table is generated from the catalog', async (t) => {
  const readme = readFileSync(new URL('../src/api/ERRORS.md', import.meta.url), 'utf8');
  const m = /<!-- errors:start -->\n([\s\S]*?)\n<!-- errors:end -->/.exec(readme);
  t.ok(m, 'src/api/ERRORS.md has the errors:start/errors:end markers');
  // Compared line by line, so a failure shows the rows that differ.
  t.strictSame(
    m?.[1]?.split('\n'),
    errorTableMarkdown().split('\n'),
    'src/api/ERRORS.md table is out of date: paste errorTableMarkdown() (src/errors.ts) between the markers',
  );
});

t.test('codes are UPPER_SNAKE with a 4xx/5xx status and a one-line meaning', async (t) => {
  const codes = Object.keys(ERROR_CATALOG) as ErrorCode[];
  t.ok(codes.length >= 20);
  for (const code of codes) {
    const { status, description } = ERROR_CATALOG[code];
    t.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/, `${code}: UPPER_SNAKE`);
    t.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: status ${status}`);
    t.ok(description.length > 0 && !description.includes('\n') && !description.includes('|'), `${code}: description fits a table row`);
  }
  // The statuses [API-CONTRACT §3] names for the generic codes.
  t.strictSame(
    Object.fromEntries(
      (
        [
          'BAD_REQUEST',
          'UNAUTHORIZED',
          'LOCATION_DISABLED',
          'NOT_FOUND',
          'METHOD_NOT_ALLOWED',
          'PAYLOAD_TOO_LARGE',
          'VALIDATION_FAILED',
          'INTERNAL',
        ] as const
      ).map((c) => [c, ERROR_CATALOG[c].status]),
    ),
    {
      BAD_REQUEST: 400,
      UNAUTHORIZED: 401,
      LOCATION_DISABLED: 403,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      PAYLOAD_TOO_LARGE: 413,
      VALIDATION_FAILED: 422,
      INTERNAL: 500,
    },
  );
});

t.test('toErrorResponse: BioGateError keeps code, status, detail and headers', async (t) => {
  const cause = new Error('disk on fire');
  const err = new BioGateError('RATE_LIMITED', 'Slow down', { headers: { 'Retry-After': '3' }, cause });
  t.equal(err.cause, cause);
  t.strictSame(toErrorResponse(err), { status: 429, headers: { 'Retry-After': '3' }, body: { detail: 'Slow down', code: 'RATE_LIMITED' } });

  const v = invalid(['body', 'pin'], 'must be between 1 and 99999999', 'range');
  t.equal(v.message, 'VALIDATION_FAILED: body.pin: must be between 1 and 99999999');
  t.strictSame(toErrorResponse(v), {
    status: 422,
    headers: {},
    body: { detail: [{ loc: ['body', 'pin'], msg: 'must be between 1 and 99999999', type: 'range' }], code: 'VALIDATION_FAILED' },
  });
});

t.test('toErrorResponse: anything else is a 500 without details', async (t) => {
  const internal = { status: 500, headers: {}, body: { detail: 'Internal server error', code: 'INTERNAL' } };
  const plain = toErrorResponse(new Error('SELECT * FROM secrets failed at /srv/biogate/db'));
  t.strictSame(plain, internal);
  t.notMatch(JSON.stringify(plain), /secrets|srv/, 'no message, path or stack leaks');
  t.strictSame(toErrorResponse(new TypeError('x is undefined')), internal);
  t.strictSame(toErrorResponse('a string'), internal);
  t.strictSame(toErrorResponse(undefined), internal);
  const lookalike = Object.assign(new Error('fake'), { code: 'NOT_FOUND', status: 404, detail: 'forged' });
  t.strictSame(toErrorResponse(lookalike), internal, 'only BioGateError is trusted');
});
