/**
 * A terminal's roster sync state (DeviceResponse.sync, issue #31) as the console shows it: a badge that
 * names the state in words and a symbol (never colour alone), and the counts and reason behind it.
 */
import type { DeviceSync, SyncState } from './api-types.js';
import { formatLocal } from './time.js';
import { t } from './i18n/index.js';

/** A sync state in words, in the console's language. */
export const syncLabel = (state: SyncState): string => t(`sync.${state}`);
const SYNC_SYMBOL: Record<SyncState, string> = { in_sync: '✓', syncing: '↻', drift: '⚠', unknown: '?' };
const SYNC_CLASS: Record<SyncState, string> = { in_sync: 'badge-on', syncing: 'badge-wait', drift: 'badge-bad', unknown: 'badge-off' };

/** The state badge; the symbol is decoration, the words are what a screen reader reads. */
export function SyncBadge({ sync }: { sync: DeviceSync | undefined }) {
  if (!sync) return <span class="badge badge-off">{t('sync.notReported')}</span>;
  return (
    <span class={`badge ${SYNC_CLASS[sync.state]}`} data-sync-state={sync.state}>
      <span aria-hidden="true">{SYNC_SYMBOL[sync.state]} </span>
      {syncLabel(sync.state)}
    </span>
  );
}

export const owedText = (s: DeviceSync): string =>
  s.revocations_owed > 0 ? t('sync.linesRevoking', { lines: s.owed, revocations: s.revocations_owed }) : t('sync.lines', { lines: s.owed });

/**
 * The `dt`/`dd` pairs of a terminal's sync state inside a description list: the badge always; owed
 * lines, refusals and the reason when the terminal is not in sync; the times when `times` is set.
 */
export function SyncFacts({ sync, zone, times = false }: { sync: DeviceSync | undefined; zone: string; times?: boolean }) {
  return (
    <>
      <dt>{t('sync.label')}</dt>
      <dd class="sync">
        <SyncBadge sync={sync} />
      </dd>
      {sync && sync.state !== 'in_sync' && (
        <>
          <dt>{t('sync.owed')}</dt>
          <dd class="sync-owed">{owedText(sync)}</dd>
          <dt>{t('sync.refused')}</dt>
          <dd class="sync-refused">{sync.refused}</dd>
          {sync.reason !== null && (
            <>
              <dt>{t('sync.reason')}</dt>
              <dd class="sync-reason">{sync.reason}</dd>
            </>
          )}
        </>
      )}
      {sync && times && (
        <>
          <dt>{t('sync.lastConfirmed')}</dt>
          <dd>{formatLocal(sync.last_confirmed_at, zone)}</dd>
          <dt>{t('sync.lastAudit')}</dt>
          <dd class="sync-audit">{sync.last_audit_at === null ? t('time.never') : formatLocal(sync.last_audit_at, zone)}</dd>
        </>
      )}
    </>
  );
}

/** The terminal's serial number in a `devices/<sn>/sync` stream topic, or null for any other topic. */
export function syncTopicSn(topic: string | undefined): string | null {
  const parts = topic?.split('/') ?? [];
  return parts.length === 3 && parts[0] === 'devices' && parts[2] === 'sync' ? (parts[1] as string) : null;
}
