/**
 * Users: search and paging, create/edit (with the user's areas and access levels)/deactivate/delete, and CSV import
 * through POST /api/users/import.
 */
import { useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { AccessLevel, Area, ImportReply, Reply, User } from './api-types.js';
import { allLevels, LevelChecks, levelNames } from './access-levels.js';
import { AreaChecks, allAreas, areaNames } from './areas.js';
import { SelectBox, useSelection } from './bulk.js';
import { CsvError, parseUsersCsv } from './csv.js';
import { UserBulk } from './user-bulk.js';
import {
  ConfirmRecord,
  DangerButton,
  errorText,
  Form,
  FormActions,
  HeaderRow,
  Messages,
  type Msg,
  Notice,
  Pager,
  Table,
  useLoad,
} from './ui.js';

const PRIVILEGES: Record<number, string> = { 0: 'user', 2: 'enroller', 6: 'manager', 14: 'administrator' };
/** Rows per import request: small enough for steady progress, large enough to stay fast. */
const CHUNK = 100;

type Draft = {
  pin: string;
  first_name: string;
  last_name: string;
  card_no: string;
  privilege: string;
  is_active: boolean;
  areas: number[];
  access_levels: number[];
};
const EMPTY: Draft = { pin: '', first_name: '', last_name: '', card_no: '', privilege: '0', is_active: true, areas: [], access_levels: [] };

export function UsersPage({ session }: { session: Session & { kind: 'location' } }) {
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api<Reply<'/api/users', 'get'>>(session.token, 'GET', `/api/users${query({ search: applied, page, limit: 20 })}`),
    [applied, page],
  );
  const areas = useLoad(() => allAreas(session.token), [session.token]);
  const levels = useLoad(() => allLevels(session.token), [session.token]);
  const [editing, setEditing] = useState<{ draft: Draft; isNew: boolean } | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const [message, setMessage] = useState<Msg>(null);
  const writable = session.me.token?.scope !== 'read';
  const selected = useSelection<number>();

  const save = async (draft: Draft) => {
    const body = {
      // The API takes the PIN as a number here (import also takes digit strings); anything else it explains.
      pin: /^\d{1,8}$/.test(draft.pin.trim()) ? Number(draft.pin.trim()) : draft.pin,
      first_name: draft.first_name || null,
      last_name: draft.last_name || null,
      card_no: draft.card_no || null,
      privilege: Number(draft.privilege),
      is_active: draft.is_active,
      areas: draft.areas,
      access_levels: draft.access_levels,
    };
    try {
      await api(session.token, 'POST', '/api/users', body);
      setMessage({ kind: 'ok', text: `User ${draft.pin} saved.` });
      setEditing(null);
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };
  const setActive = async (u: User, active: boolean) => {
    try {
      await api(session.token, 'POST', '/api/users', { pin: u.pin, is_active: active });
      setMessage({ kind: 'ok', text: `User ${u.pin} ${active ? 'activated' : 'deactivated'}.` });
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Users</h1>
      <Form
        class="filters"
        role="search"
        onSubmit={() => {
          setPage(1);
          setApplied(search.trim());
        }}
      >
        <label>
          Search name or PIN
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
        {writable && (
          <button type="button" onClick={() => setEditing({ draft: EMPTY, isNew: true })}>
            New user
          </button>
        )}
      </Form>
      <Messages message={message} errors={[list.error, areas.error, levels.error]} />
      {editing && (
        <UserForm
          initial={editing.draft}
          isNew={editing.isNew}
          areas={areas.data ?? []}
          levels={levels.data ?? []}
          onSave={(d) => void save(d)}
          onCancel={() => setEditing(null)}
        />
      )}
      {list.data && (
        <p class="lead" aria-live="polite">
          {list.data.total} users{applied ? ` matching “${applied}”` : ''}.
        </p>
      )}
      {writable && list.data && list.data.data.length > 0 && (
        <UserBulk token={session.token} shown={list.data.data.map((u) => u.pin)} selection={selected} onDone={list.reload} />
      )}
      {list.data && list.data.data.length > 0 && (
        <Table
          caption="Users by PIN"
          columns={[
            ...(writable ? ['Select'] : []),
            ...['PIN', 'Name', 'Card', 'Privilege', 'Biometrics', 'Areas', 'Access levels', 'Status'],
            ...(writable ? ['Actions'] : []),
          ]}
        >
          {list.data.data.map((u) => (
            <tr key={u.pin} data-pin={u.pin}>
              {writable && (
                <td>
                  <SelectBox selection={selected} value={u.pin} label={`Select user ${u.pin}`} />
                </td>
              )}
              <td>{u.pin}</td>
              <td>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</td>
              <td>{u.card_no ?? '—'}</td>
              <td>{PRIVILEGES[u.privilege] ?? u.privilege}</td>
              <td>{u.has_biometric ? <span class="badge badge-on">enrolled</span> : <span class="badge badge-off">none</span>}</td>
              <td class="areas">{areaNames(u.areas, areas.data)}</td>
              <td class="levels">{levelNames(u.access_levels, levels.data)}</td>
              <td>{u.is_active ? 'active' : 'inactive'}</td>
              {writable && (
                <td class="row-actions">
                  <button
                    type="button"
                    aria-label={`Edit user ${u.pin}`}
                    onClick={() =>
                      setEditing({
                        isNew: false,
                        draft: {
                          pin: String(u.pin),
                          first_name: u.first_name ?? '',
                          last_name: u.last_name ?? '',
                          card_no: u.card_no ?? '',
                          privilege: String(u.privilege),
                          is_active: u.is_active,
                          areas: [...u.areas],
                          access_levels: [...u.access_levels],
                        },
                      })
                    }
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    aria-label={`${u.is_active ? 'Deactivate' : 'Activate'} user ${u.pin}`}
                    onClick={() => void setActive(u, !u.is_active)}
                  >
                    {u.is_active ? 'Deactivate' : 'Activate'}
                  </button>
                  <DangerButton label={`Delete user ${u.pin}`} onClick={() => setDeleting(u)}>
                    Delete
                  </DangerButton>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={setPage} label="Users" />
      <ConfirmRecord
        pending={deleting}
        title={`Delete user ${deleting?.pin ?? ''}?`}
        word={deleting ? String(deleting.pin) : ''}
        action="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={(u) =>
          void api(session.token, 'DELETE', `/api/users/${u.pin}`).then(
            () => {
              setMessage({ kind: 'ok', text: `User ${u.pin} deleted.` });
              list.reload();
            },
            (err: unknown) => setMessage({ kind: 'error', text: errorText(err) }),
          )
        }
      >
        <p>The user is removed from BioGate and from every terminal of the location.</p>
      </ConfirmRecord>
      {writable && <ImportSection session={session} onDone={list.reload} />}
    </>
  );
}

function UserForm({
  initial,
  isNew,
  areas,
  levels,
  onSave,
  onCancel,
}: {
  initial: Draft;
  isNew: boolean;
  areas: readonly Area[];
  levels: readonly AccessLevel[];
  onSave: (d: Draft) => void;
  onCancel: () => void;
}) {
  const [d, setD] = useState(initial);
  const field = (name: keyof Draft, label: string, extra: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input value={String(d[name])} onInput={(e) => setD({ ...d, [name]: e.currentTarget.value })} {...extra} />
    </label>
  );
  return (
    <Form class="panel" aria-labelledby="user-form-h" onSubmit={() => onSave(d)}>
      <h2 id="user-form-h">{isNew ? 'New user' : `Edit user ${d.pin}`}</h2>
      <div class="form-grid">
        {field('pin', 'PIN', { required: true, inputMode: 'numeric', pattern: '[0-9]{1,8}', readOnly: !isNew })}
        {field('first_name', 'First name', { maxLength: 100 })}
        {field('last_name', 'Last name', { maxLength: 100 })}
        {field('card_no', 'Card number', { inputMode: 'numeric', pattern: '[0-9]{0,32}' })}
        <label>
          Privilege
          <select value={d.privilege} onChange={(e) => setD({ ...d, privilege: e.currentTarget.value })}>
            {Object.entries(PRIVILEGES).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={d.is_active} onChange={(e) => setD({ ...d, is_active: e.currentTarget.checked })} />
          Active
        </label>
      </div>
      <AreaChecks areas={areas} value={d.areas} onChange={(ids) => setD({ ...d, areas: ids })} />
      <LevelChecks levels={levels} value={d.access_levels} onChange={(ids) => setD({ ...d, access_levels: ids })} />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

interface RowError {
  readonly line: number;
  readonly pin: string;
  readonly error: string;
}

function ImportSection({ session, onDone }: { session: Session & { kind: 'location' }; onDone: () => void }) {
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<{ imported: number; errors: RowError[]; ignored: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (file: File) => {
    setError(null);
    setResult(null);
    setBusy(true);
    try {
      const { rows, ignored } = parseUsersCsv(await file.text());
      if (rows.length > 10_000) throw new CsvError(`The file has ${rows.length} rows; at most 10,000 per import`);
      const errors: RowError[] = [];
      let imported = 0;
      setProgress({ done: 0, total: rows.length });
      for (let i = 0; i < rows.length; i += CHUNK) {
        const chunk = rows.slice(i, i + CHUNK);
        // Errors come back with the item as sent: its JSON finds the line it came from.
        const lineOf = new Map(chunk.map((r) => [JSON.stringify(r.item), r.line]));
        const reply = await api<ImportReply>(
          session.token,
          'POST',
          '/api/users/import',
          chunk.map((r) => r.item),
        );
        imported += reply.processed_count;
        for (const e of reply.errors) {
          const pin = (e.user_data as { pin?: unknown } | null)?.pin;
          errors.push({ line: lineOf.get(JSON.stringify(e.user_data)) ?? 0, pin: pin === undefined ? '' : String(pin), error: e.error });
        }
        setProgress({ done: Math.min(i + CHUNK, rows.length), total: rows.length });
      }
      setResult({ imported, errors: errors.sort((a, b) => a.line - b.line), ignored });
      onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="import-h">
      <h2 id="import-h">Import users from CSV</h2>
      <p>
        A header row naming the columns (<code>pin</code>, <code>first_name</code>, <code>last_name</code>, <code>card_no</code>,{' '}
        <code>privilege</code>, <code>is_active</code>, …); comma, semicolon or tab. Existing PINs are updated. Good rows are imported, bad
        rows are listed.
      </p>
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv"
          disabled={busy}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) void run(file);
            e.currentTarget.value = '';
          }}
        />
      </label>
      {progress && (
        <p>
          <label>
            Import progress
            <progress max={progress.total} value={progress.done} />
          </label>{' '}
          <span role="status">
            {progress.done} of {progress.total} rows sent
          </span>
        </p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {result && (
        <Notice kind={result.errors.length > 0 ? 'error' : 'ok'}>
          Imported {result.imported} users{result.errors.length > 0 ? `; ${result.errors.length} rows failed` : ''}.
          {result.ignored.length > 0 && ` Ignored columns: ${result.ignored.join(', ')}.`}
        </Notice>
      )}
      {result && result.errors.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Rows not imported</caption>
            <thead>
              <HeaderRow columns={['Line', 'PIN', 'Problem']} />
            </thead>
            <tbody>
              {result.errors.map((e) => (
                <tr key={`${e.line}-${e.pin}`}>
                  <td>{e.line}</td>
                  <td>{e.pin}</td>
                  <td>{e.error}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
