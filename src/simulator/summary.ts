// Fleet statistics for runSimulation: one progress line and the final summary.

import type { SimulatedDevice } from './types.js';

export interface SimulationSummary {
  readonly devices: number;
  readonly v2: number;
  readonly v3: number;
  /** devices whose session was up when the summary was taken */
  readonly online: number;
  /** devices that completed at least one handshake */
  readonly connected: number;
  readonly elapsedMs: number;
  readonly handshakes: number;
  readonly polls: number;
  readonly commands: {
    readonly executed: number;
    /** `Return` ≥ 0 */
    readonly ok: number;
    readonly failed: number;
    /** lost after a restart command in the same reply */
    readonly lost: number;
    readonly byCode: Readonly<Record<string, number>>;
  };
  readonly uploads: { readonly sent: number; readonly acknowledged: number; readonly failed: number; readonly dropped: number };
  readonly punches: number;
  readonly templatesEnrolled: number;
  readonly errors: number;
  /** Terminals whose last request failed, with why (the last error each saw). */
  readonly failing: readonly { readonly sn: string; readonly protocol: string; readonly error: string }[];
  readonly protocolWarnings: number;
}

export function summarize(devices: readonly SimulatedDevice[], elapsedMs: number): SimulationSummary {
  const byCode: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  const sum = (pick: (d: SimulatedDevice) => number): number => devices.reduce((n, d) => n + pick(d), 0);
  for (const d of devices) {
    for (const [code, n] of Object.entries(d.stats.commandsByCode)) {
      byCode[code] = (byCode[code] ?? 0) + n;
      if (Number(code) >= 0) ok += n;
      else failed += n;
    }
  }
  return {
    devices: devices.length,
    v2: devices.filter((d) => d.protocol === 'v2').length,
    v3: devices.filter((d) => d.protocol === 'v3').length,
    online: devices.filter((d) => d.stats.online).length,
    connected: devices.filter((d) => d.stats.handshakes > 0).length,
    elapsedMs,
    handshakes: sum((d) => d.stats.handshakes),
    polls: sum((d) => d.stats.polls),
    commands: { executed: ok + failed, ok, failed, lost: sum((d) => d.stats.commandsLost), byCode },
    uploads: {
      sent: sum((d) => d.stats.uploadsSent),
      acknowledged: sum((d) => d.stats.uploadsAcknowledged),
      failed: sum((d) => d.stats.uploadsFailed),
      dropped: sum((d) => d.stats.uploadsDropped),
    },
    punches: sum((d) => d.stats.punches),
    templatesEnrolled: sum((d) => d.stats.templatesEnrolled),
    errors: sum((d) => d.stats.errors),
    failing: devices
      .filter((d) => d.stats.errors > 0 && d.stats.lastError !== null)
      .map((d) => ({ sn: d.sn, protocol: d.protocol, error: d.stats.lastError ?? '' })),
    protocolWarnings: sum((d) => d.stats.protocolWarnings),
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** One line for a live display. */
export function formatProgress(s: SimulationSummary): string {
  return (
    `[${seconds(s.elapsedMs)}] online ${s.online}/${s.devices} · polls ${s.polls} · commands ${s.commands.ok} ok, ` +
    `${s.commands.failed} failed · uploads ${s.uploads.acknowledged}/${s.uploads.sent} acknowledged · errors ${s.errors}`
  );
}

/** The final report. */
export function formatSummary(s: SimulationSummary): string[] {
  const codes = Object.entries(s.commands.byCode)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  return [
    `simulation finished after ${seconds(s.elapsedMs)}`,
    `devices online: ${s.online}/${s.devices} (v2 ${s.v2}, v3 ${s.v3}; ${s.connected} connected at least once, ${s.handshakes} handshakes)`,
    `polls: ${s.polls}`,
    `commands executed: ${s.commands.executed} (ok ${s.commands.ok}, failed ${s.commands.failed}, lost after restart ${s.commands.lost})` +
      (codes === '' ? '' : ` by return code: ${codes}`),
    `uploads: ${s.uploads.sent} sent, ${s.uploads.acknowledged} acknowledged, ${s.uploads.failed} failed, ${s.uploads.dropped} dropped`,
    `punches: ${s.punches}, templates enrolled: ${s.templatesEnrolled}`,
    `errors: ${s.errors}, protocol warnings: ${s.protocolWarnings}`,
    ...failingLines(s.failing),
  ];
}

const SHOWN_FAILING = 5;

/** Why terminals failed, the first few by serial, and what an operator does about the usual causes. */
function failingLines(failing: SimulationSummary['failing']): string[] {
  if (failing.length === 0) return [];
  const lines = failing.slice(0, SHOWN_FAILING).map((f) => `  ${f.sn} (${f.protocol}): ${f.error}`);
  if (failing.length > SHOWN_FAILING) lines.push(`  … and ${failing.length - SHOWN_FAILING} more terminals`);
  const errors = failing.map((f) => f.error).join('\n');
  if (/\b401\b/.test(errors))
    lines.push(
      'hint: a v3 terminal that registered with BioGate before is refused (401) when it registers again, as a replaced terminal would be;',
      '      let it register anew with: npx biogate device reset-registration --location <id> --sn <SN> (README "Security model")',
    );
  if (/not assigned|\b403\b/.test(errors))
    lines.push('hint: BioGate serves a terminal only once it is assigned to a location: npx biogate device assign --sn <SN> --location 1');
  return lines;
}
