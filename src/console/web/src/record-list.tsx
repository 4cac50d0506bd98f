/**
 * What the pages of a location's named records (Areas, Schedules, Access levels) share: the paged list at the
 * record's path with its message, deletion with DELETE `path/{id}`, the create/edit form's state, and the row's
 * buttons, count and delete confirmation.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, query, request, type Session } from './api.js';
import type { Page } from './api-types.js';
import { t, useLanguage } from './i18n/index.js';
import { ConfirmRecord, DangerButton, errorText, type Msg, useLoad } from './ui.js';

type Named = { id: number; name: string };

/** The plain refusal: the record's name and the API's error. */
export function notDeleted(record: Named, err: unknown): string {
  return t('records.notDeleted', { name: record.name, error: errorText(err) });
}

/**
 * A page of a location's records at `path`, `limit` a page. `done` says what happened and loads the list again;
 * `remove` deletes a record (“`noun` “name” deleted.”, or `deleted` of it in the page's own words) or says `refusal`
 * of the API's error. `noun` is in the current language, as the page's other texts.
 */
export function useRecords<T extends Named>(
  session: Session & { kind: 'location' },
  options: {
    path: string;
    noun: string;
    limit: number;
    refusal?: (record: T, err: unknown) => string | Promise<string>;
    deleted?: (record: T) => string;
  },
) {
  const { path, noun, limit, refusal = notDeleted } = options;
  const deleted = options.deleted ?? ((r: T) => t('records.deleted', { noun, name: r.name }));
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<T>>(session.token, 'GET', `${path}${query({ page, limit })}`), [page]);
  const [deleting, setDeleting] = useState<T | null>(null);
  const [message, setMessage] = useState<Msg>(null);
  const writable = session.me.token?.scope !== 'read';

  const done = (text: string) => {
    setMessage({ kind: 'ok', text });
    list.reload();
  };
  const remove = async (record: T) => {
    try {
      await request(session.token, 'DELETE', `${path}/${record.id}`);
      done(deleted(record));
    } catch (err) {
      setMessage({ kind: 'error', text: await refusal(record, err) });
      // What the refusal rests on (counts, references) may have changed since the list was loaded.
      list.reload();
    }
  };
  return { setPage, list, deleting, setDeleting, message, setMessage, writable, done, remove };
}

/**
 * The create/edit form of a record page: `open(null)` for a new record, `open(r)` to edit r. `save` checks the
 * draft with `inputOf` (a string is its problem), then POSTs `path` or PUTs `path/{id}`, and says so with `created`
 * or `saved` (by default “`noun` “name” created.”, “… saved.”).
 */
export function useRecordForm<T extends Named, D, B extends object>(
  session: Session & { kind: 'location' },
  records: { done: (text: string) => void; setMessage: (m: Msg) => void },
  options: {
    path: string;
    noun: string;
    inputOf: (draft: D) => B | string;
    created?: (record: T) => string;
    saved?: (record: T) => string;
  },
) {
  const { path, noun, inputOf } = options;
  const created = options.created ?? ((r: T) => t('records.created', { noun, name: r.name }));
  const saved = options.saved ?? ((r: T) => t('records.saved', { noun, name: r.name }));
  const [editing, setEditing] = useState<{ record: T | null } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  const open = (record: T | null) => {
    setFormError(null);
    records.setMessage(null);
    setEditing({ record });
  };
  const close = () => setEditing(null);
  const save = async (target: T | null, draft: D) => {
    const body = inputOf(draft);
    if (typeof body === 'string') {
      setFormError(body);
      return;
    }
    try {
      const r = target ? await api<T>(session.token, 'PUT', `${path}/${target.id}`, body) : await api<T>(session.token, 'POST', path, body);
      setEditing(null);
      records.done(target ? saved(r) : created(r));
    } catch (err) {
      setFormError(errorText(err));
    }
  };
  return { editing, formError, open, close, save };
}

/** The page's "New …" button, above the list. */
export function NewRecord({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <div class="filters">
      <button type="button" onClick={onClick}>
        {label}
      </button>
    </div>
  );
}

/**
 * “1 area.”, “3 areas.”: the list's total, announced when it changes; `count` says it in the page's own words (a
 * plural message), else `one` or `many` follows the number.
 */
export function RecordCount({
  page,
  one = '',
  many = '',
  count,
}: {
  page: Page<unknown> | null;
  one?: string;
  many?: string;
  count?: (n: number) => string;
}) {
  useLanguage();
  if (!page) return null;
  return (
    <p class="lead" aria-live="polite">
      {count ? count(page.total) : t('records.count', { n: page.total, one, many })}
    </p>
  );
}

/**
 * A row's Edit (or Rename) and Delete buttons, named “Edit area North”, “Delete area North” (or `editLabel` and
 * `deleteLabel`, in the page's own words).
 */
export function RowActions(props: {
  noun: string;
  name: string;
  edit?: string;
  editLabel?: string;
  deleteLabel?: string;
  onEdit: () => void;
  onDelete: () => void;
}) {
  useLanguage();
  const edit = props.edit ?? t('records.edit');
  const { noun, name } = props;
  return (
    <td class="row-actions">
      <button type="button" aria-label={props.editLabel ?? t('records.editLabel', { edit, noun, name })} onClick={props.onEdit}>
        {edit}
      </button>
      <DangerButton label={props.deleteLabel ?? t('records.deleteLabel', { noun, name })} onClick={props.onDelete}>
        {t('records.delete')}
      </DangerButton>
    </td>
  );
}

/** “Delete area “North”?” (or `title` of the record), confirmed by typing the record's name. */
export function ConfirmNamed<T extends { name: string }>(props: {
  pending: T | null;
  noun: string;
  action?: string;
  title?: (name: string) => string;
  onClose: () => void;
  onConfirm: (record: T) => void;
  children?: ComponentChildren;
}) {
  useLanguage();
  const action = props.action ?? t('records.delete');
  const name = props.pending?.name ?? '';
  return (
    <ConfirmRecord
      pending={props.pending}
      title={props.title ? props.title(name) : t('records.confirm', { action, noun: props.noun, name })}
      word={name}
      action={action}
      onClose={props.onClose}
      onConfirm={props.onConfirm}
    >
      {props.children}
    </ConfirmRecord>
  );
}

/** The record page's delete confirmation: typing the name of `records.deleting` deletes it with `records.remove`. */
export function ConfirmRemove<T extends Named>({
  records,
  noun,
  title,
  children,
}: {
  records: { deleting: T | null; setDeleting: (r: T | null) => void; remove: (r: T) => Promise<void> };
  noun: string;
  title?: (name: string) => string;
  children: ComponentChildren;
}) {
  return (
    <ConfirmNamed
      pending={records.deleting}
      noun={noun}
      title={title}
      onClose={() => records.setDeleting(null)}
      onConfirm={(r) => void records.remove(r)}
    >
      {children}
    </ConfirmNamed>
  );
}
