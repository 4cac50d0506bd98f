/** Commands: a device's preset buttons, and the location's command list with live status. */
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { Command, Page, Reply } from './api-types.js';
import { openStream } from './stream.js';
import { formatLocal } from './time.js';
import { ScenarioControls } from './scenario.js';
import { CommandStatus, errorText, Notice, Pager } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

/**
 * The commands of a filter, kept current by the stream: a `commands/<id>` event replaces the row
 * (and a new command matching the filter appears on the first page).
 */
export function useLiveCommands(session: Session & { kind: 'location' }, filter: { sn?: string; status?: string }, page: number) {
  const [data, setData] = useState<Page<Command> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    api<Reply<'/api/commands', 'get'>>(session.token, 'GET', `/api/commands${query({ ...filter, page, limit: 20 })}`).then(
      (p) => live && (setData(p), setError(null)),
      (err: unknown) => live && setError(errorText(err)),
    );
    const close = openStream({
      token: session.token,
      topics: [filter.sn === undefined ? 'commands/#' : 'commands/+'],
      onMessage: (m) => {
        const c = m.payload as Command | null;
        if (!c || !m.topic?.startsWith('commands/')) return;
        if (filter.sn !== undefined && c.sn !== filter.sn) return;
        setData((p) => {
          if (!p) return p;
          const at = p.data.findIndex((x) => x.id === c.id);
          if (at >= 0) return { ...p, data: p.data.map((x) => (x.id === c.id ? c : x)) };
          if (page !== 1 || (filter.status !== undefined && c.status !== filter.status)) return p;
          return { ...p, total: p.total + 1, data: [c, ...p.data].slice(0, p.limit) };
        });
      },
    });
    return () => {
      live = false;
      close();
    };
  }, [session.token, filter.sn, filter.status, page, tick]);
  return { data, error, reload: () => setTick((n) => n + 1) };
}

/** The anchor of a command's row in a CommandTable (the device page links its audit's query there). */
export const commandAnchor = (id: number): string => `command-${id}`;

export function CommandTable({ page, zone, showSn }: { page: Page<Command> | null; zone: string; showSn: boolean }) {
  if (!page) return <p>{t('commands.loading')}</p>;
  if (page.data.length === 0) return <p>{t('commands.none')}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{t('commands.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('commands.id')}</th>
            <th scope="col">{t('commands.command')}</th>
            {showSn && <th scope="col">{t('commands.device')}</th>}
            <th scope="col">{t('commands.status')}</th>
            <th scope="col">{t('commands.queued')}</th>
            <th scope="col">{t('commands.finished')}</th>
            <th scope="col">{t('commands.error')}</th>
          </tr>
        </thead>
        <tbody>
          {page.data.map((c) => (
            <tr key={c.id} id={commandAnchor(c.id)} data-command={c.id}>
              <td>{c.id}</td>
              <td>{c.command}</td>
              {showSn && <td>{c.sn ?? (c.children ? t('commands.terminals', { n: c.children.length }) : '—')}</td>}
              <td>
                <CommandStatus status={c.status} />
              </td>
              <td>{formatLocal(c.created_at, zone)}</td>
              <td>{formatLocal(c.acknowledged_at, zone)}</td>
              <td>{c.error_message ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const STATUSES: readonly ('' | Command['status'])[] = ['', 'pending', 'sent', 'success', 'failed'];

export function CommandsPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  const [status, setStatus] = useState('');
  const [sn, setSn] = useState('');
  const [applied, setApplied] = useState<{ sn?: string; status?: string }>({});
  const [page, setPage] = useState(1);
  const { data, error } = useLiveCommands(session, applied, page);
  useLanguage();
  return (
    <>
      <h1 tabIndex={-1}>{t('commands.title')}</h1>
      <ScenarioControls session={session} />
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setApplied({ ...(sn ? { sn } : {}), ...(status ? { status } : {}) });
        }}
      >
        <label>
          {t('commands.serial')}
          <input value={sn} onInput={(e) => setSn(e.currentTarget.value.trim())} />
        </label>
        <label>
          {t('commands.status')}
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s ? t(`status.${s}`) : t('commands.any')}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('commands.filter')}</button>
      </form>
      {error && <Notice kind="error">{error}</Notice>}
      <CommandTable page={data} zone={zone} showSn={true} />
      <Pager page={data} onPage={setPage} label={t('commands.title')} />
    </>
  );
}
