/**
 * Users: search and paging, create/edit (with the user's areas and access levels)/deactivate/delete, and CSV import
 * through POST /api/users/import.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { ImportReply, Reply, User } from './api-types.js';
import { allLevels, levelNames } from './access-levels.js';
import { allAreas, areaNames } from './areas.js';
import { SelectBox, useSelection } from './bulk.js';
import { CsvError, parseUsersCsv } from './csv.js';
import { UserBulk } from './user-bulk.js';
import { EMPTY, privilegeText, UserForm, type Draft } from './user-form.js';
import { ConfirmRecord, DangerButton, errorText, Form, HeaderRow, Messages, type Msg, Notice, Pager, Table, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

const COLUMNS = ['pin', 'name', 'card', 'department', 'privilege', 'biometrics', 'areas', 'levels', 'status'] as const;
/** Rows per import request: small enough for steady progress, large enough to stay fast. */
const CHUNK = 100;

export function UsersPage({ session }: { session: Session & { kind: 'location' } }) {
  useLanguage();
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
      department: draft.department || null,
      position: draft.position || null,
      privilege: Number(draft.privilege),
      is_active: draft.is_active,
      areas: draft.areas,
      access_levels: draft.access_levels,
    };
    try {
      await api(session.token, 'POST', '/api/users', body);
      setMessage({ kind: 'ok', text: t('users.saved', { pin: draft.pin }) });
      setEditing(null);
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };
  const setActive = async (u: User, active: boolean) => {
    try {
      await api(session.token, 'POST', '/api/users', { pin: u.pin, is_active: active });
      setMessage({ kind: 'ok', text: t(active ? 'users.activated' : 'users.deactivated', { pin: u.pin }) });
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>{t('users.title')}</h1>
      <Form
        class="filters"
        role="search"
        onSubmit={() => {
          setPage(1);
          setApplied(search.trim());
        }}
      >
        <label>
          {t('users.search')}
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <button type="submit">{t('users.searchButton')}</button>
        {writable && (
          <button type="button" onClick={() => setEditing({ draft: EMPTY, isNew: true })}>
            {t('users.new')}
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
          {applied ? t('users.countMatching', { n: list.data.total, search: applied }) : t('users.count', { n: list.data.total })}
        </p>
      )}
      {writable && list.data && list.data.data.length > 0 && (
        <UserBulk token={session.token} shown={list.data.data.map((u) => u.pin)} selection={selected} onDone={list.reload} />
      )}
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={t('users.caption')}
          columns={[
            ...(writable ? [t('users.col.select')] : []),
            ...COLUMNS.map((c) => t(`users.col.${c}`)),
            ...(writable ? [t('users.col.actions')] : []),
          ]}
        >
          {list.data.data.map((u) => (
            <tr key={u.pin} data-pin={u.pin}>
              {writable && (
                <td>
                  <SelectBox selection={selected} value={u.pin} label={t('users.selectUser', { pin: u.pin })} />
                </td>
              )}
              <td>{u.pin}</td>
              <td>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</td>
              <td>{u.card_no ?? '—'}</td>
              <td>{[u.department, u.position].filter(Boolean).join(' · ') || '—'}</td>
              <td>{privilegeText(u.privilege)}</td>
              <td>
                <span class={`badge ${u.has_biometric ? 'badge-on' : 'badge-off'}`}>
                  {t(u.has_biometric ? 'users.enrolled' : 'users.noBiometric')}
                </span>
              </td>
              <td class="areas">{areaNames(u.areas, areas.data)}</td>
              <td class="levels">{levelNames(u.access_levels, levels.data)}</td>
              <td>{u.is_active ? t('users.active') : t('users.inactive')}</td>
              {writable && (
                <td class="row-actions">
                  <button
                    type="button"
                    aria-label={t('users.editUser', { pin: u.pin })}
                    onClick={() =>
                      setEditing({
                        isNew: false,
                        draft: {
                          pin: String(u.pin),
                          first_name: u.first_name ?? '',
                          last_name: u.last_name ?? '',
                          card_no: u.card_no ?? '',
                          department: u.department ?? '',
                          position: u.position ?? '',
                          privilege: String(u.privilege),
                          is_active: u.is_active,
                          areas: [...u.areas],
                          access_levels: [...u.access_levels],
                        },
                      })
                    }
                  >
                    {t('users.edit')}
                  </button>
                  <button
                    type="button"
                    aria-label={t(u.is_active ? 'users.deactivateUser' : 'users.activateUser', { pin: u.pin })}
                    onClick={() => void setActive(u, !u.is_active)}
                  >
                    {u.is_active ? t('users.deactivate') : t('users.activate')}
                  </button>
                  <DangerButton label={t('users.deleteUser', { pin: u.pin })} onClick={() => setDeleting(u)}>
                    {t('users.delete')}
                  </DangerButton>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={setPage} label={t('users.pager')} />
      <ConfirmRecord
        pending={deleting}
        title={t('users.confirmDelete', { pin: deleting?.pin ?? '' })}
        word={deleting ? String(deleting.pin) : ''}
        action={t('users.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={(u) =>
          void api(session.token, 'DELETE', `/api/users/${u.pin}`).then(
            () => {
              setMessage({ kind: 'ok', text: t('users.deleted', { pin: u.pin }) });
              list.reload();
            },
            (err: unknown) => setMessage({ kind: 'error', text: errorText(err) }),
          )
        }
      >
        <p>{t('users.deleteEffect')}</p>
      </ConfirmRecord>
      {writable && <ImportSection session={session} onDone={list.reload} />}
    </>
  );
}

interface RowError {
  readonly line: number;
  readonly pin: string;
  readonly error: string;
}

function ImportSection({ session, onDone }: { session: Session & { kind: 'location' }; onDone: () => void }) {
  useLanguage();
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<{ imported: number; errors: RowError[]; ignored: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The help's CSV column names (data, not translated) stand where the message has `{columns}`.
  const [before = '', after = ''] = t('users.import.help', { columns: '\u0000' }).split('\u0000');

  const run = async (file: File) => {
    setError(null);
    setResult(null);
    setBusy(true);
    try {
      const { rows, ignored } = parseUsersCsv(await file.text());
      if (rows.length > 10_000) throw new CsvError(t('users.import.tooMany', { n: rows.length }));
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
      <h2 id="import-h">{t('users.import.title')}</h2>
      <p>
        {before}
        {['pin', 'first_name', 'last_name', 'card_no', 'department', 'position', 'privilege', 'is_active'].map((c, i) => (
          <Fragment key={c}>
            {i > 0 && ', '}
            <code>{c}</code>
          </Fragment>
        ))}
        {after}
      </p>
      <label>
        {t('users.import.file')}
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
            {t('users.import.progress')}
            <progress max={progress.total} value={progress.done} />
          </label>{' '}
          <span role="status">{t('users.import.sent', { done: progress.done, total: progress.total })}</span>
        </p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {result && (
        <Notice kind={result.errors.length > 0 ? 'error' : 'ok'}>
          {result.errors.length > 0
            ? t('users.import.importedFailed', { imported: result.imported, failed: result.errors.length })
            : t('users.import.imported', { imported: result.imported })}
          {result.ignored.length > 0 && ` ${t('users.import.ignored', { columns: result.ignored.join(', ') })}`}
        </Notice>
      )}
      {result && result.errors.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{t('users.import.notImported')}</caption>
            <thead>
              <HeaderRow columns={[t('users.import.line'), t('users.import.pin'), t('users.import.problem')]} />
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
