// Uploads the terminal sends and how it judges the server's reply [PUSH-v2 §6.1, PUSH-v3 §7.1, §10.2].

export type Upload =
  /** v2 data table (ATTLOG, OPERLOG, BIODATA): `POST /iclock/cdata?SN=..&table=T&Stamp=9999` */
  | { readonly kind: 'table'; readonly table: string; readonly lines: readonly string[] }
  /** v3 real-time events: `POST /iclock/cdata?SN=..&table=rtlog` */
  | { readonly kind: 'rtlog'; readonly lines: readonly string[] }
  /** v3 table upload: `POST /iclock/cdata?SN=..&table=tabledata&tablename=t&count=n` */
  | { readonly kind: 'tabledata'; readonly tablename: string; readonly lines: readonly string[] }
  /** device parameters, comma list: `POST /iclock/cdata?SN=..&table=options` */
  | { readonly kind: 'options'; readonly protocol: 'v2' | 'v3'; readonly body: string }
  /** v3 command answer packet: `POST /iclock/querydata?SN=..&type=..&cmdid=..&…` */
  | {
      readonly kind: 'querydata';
      readonly type: 'tabledata' | 'count' | 'options';
      readonly cmdid: string;
      readonly tablename: string;
      readonly count: number;
      readonly packcnt: number;
      readonly packidx: number;
      readonly body: string;
    };

/** A request to one of the server's `/iclock/…` endpoints; query pairs in the order sent. */
export type RequestSpec =
  | { readonly method: 'GET'; readonly path: string; readonly query: ReadonlyArray<readonly [string, string]> }
  | {
      readonly method: 'POST';
      readonly path: string;
      readonly query: ReadonlyArray<readonly [string, string]>;
      readonly body: string;
      /** send the body as a gzip-compressed tar (`ContentType=tgz`) [PUSH-v2 §6.4] */
      readonly packed?: boolean;
    };

export interface UploadOptions {
  /** OPERLOG as a packed upload: `ContentType=tgz`, the records in a tgz [PUSH-v2 §6.4] */
  readonly packedOperlog?: boolean;
}

/** The HTTP request of an upload. */
export function uploadRequest(sn: string, u: Upload, opts: UploadOptions = {}): RequestSpec {
  switch (u.kind) {
    case 'table':
      if (opts.packedOperlog === true && u.table === 'OPERLOG') {
        return {
          method: 'POST',
          path: '/iclock/cdata',
          query: [
            ['SN', sn],
            ['table', u.table],
            ['Stamp', '9999'],
            ['ContentType', 'tgz'],
          ],
          body: `${u.lines.join('\n')}\n`,
          packed: true,
        };
      }
      // [PUSH-v2 §6.1] records LF-terminated, including the last (fixture A7)
      return post(
        '/iclock/cdata',
        [
          ['SN', sn],
          ['table', u.table],
          ['Stamp', '9999'],
        ],
        `${u.lines.join('\n')}\n`,
      );
    case 'rtlog':
      return post(
        '/iclock/cdata',
        [
          ['SN', sn],
          ['table', 'rtlog'],
        ],
        u.lines.join('\n'),
      );
    case 'tabledata':
      return post(
        '/iclock/cdata',
        [
          ['SN', sn],
          ['table', 'tabledata'],
          ['tablename', u.tablename],
          ['count', String(u.lines.length)],
        ],
        u.lines.join('\n'),
      );
    case 'options':
      // [PUSH-v2 §5.1] the v2 example carries Stamp=9999; [PUSH-v3 §3.5] v3 does not
      return post(
        '/iclock/cdata',
        u.protocol === 'v2'
          ? [
              ['SN', sn],
              ['table', 'options'],
              ['Stamp', '9999'],
            ]
          : [
              ['SN', sn],
              ['table', 'options'],
            ],
        u.body,
      );
    case 'querydata':
      return post(
        '/iclock/querydata',
        [
          ['SN', sn],
          ['type', u.type],
          ['cmdid', u.cmdid],
          ['tablename', u.tablename],
          ['count', String(u.count)],
          ['packcnt', String(u.packcnt)],
          ['packidx', String(u.packidx)],
        ],
        u.body,
      );
  }
}

const post = (path: string, query: Array<readonly [string, string]>, body: string): RequestSpec => ({ method: 'POST', path, query, body });

export type UploadVerdict = 'ok' | 'bad-reply' | 'http-error';

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Judge the server's reply. Only `ok` counts as delivered for data uploads: a plain `OK` to a
 *  tabledata upload makes a real device re-send the batch [PUSH-v3 §7.1]. */
export function uploadVerdict(u: Upload, status: number, body: string): UploadVerdict {
  if (status !== 200) return 'http-error';
  const text = body.trim();
  switch (u.kind) {
    case 'table':
    case 'rtlog':
    case 'options':
      // [PUSH-v2 §6.1] `OK`, `OK:n` and `OK: n` are all success
      return /^OK(: ?\d+)?$/.test(text) ? 'ok' : 'bad-reply';
    case 'querydata':
      // [PUSH-v3 §10.2] a DATA COUNT packet is answered `OK` (vendor V4.8 §12.1.3)
      if (u.type === 'count') return /^(OK|ok)$/.test(text) ? 'ok' : 'bad-reply';
      return new RegExp(`^${escapeRe(u.tablename)}=\\d+$`).test(text) ? 'ok' : 'bad-reply';
    case 'tabledata':
      // [PUSH-v3 §7.1, §10.2] `${tablename}=${n}`
      return new RegExp(`^${escapeRe(u.tablename)}=\\d+$`).test(text) ? 'ok' : 'bad-reply';
  }
}

/** Merge two queued uploads of the same table into one request, or undefined. */
export function mergeUploads(a: Upload, b: Upload, maxLines: number): Upload | undefined {
  if (a.kind === 'table' && b.kind === 'table' && a.table === b.table && a.lines.length + b.lines.length <= maxLines) {
    return { kind: 'table', table: a.table, lines: [...a.lines, ...b.lines] };
  }
  if (a.kind === 'rtlog' && b.kind === 'rtlog' && a.lines.length + b.lines.length <= maxLines) {
    return { kind: 'rtlog', lines: [...a.lines, ...b.lines] };
  }
  if (a.kind === 'tabledata' && b.kind === 'tabledata' && a.tablename === b.tablename && a.lines.length + b.lines.length <= maxLines) {
    return { kind: 'tabledata', tablename: a.tablename, lines: [...a.lines, ...b.lines] };
  }
  return undefined;
}
