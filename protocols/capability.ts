// Capability learning keys [COMMANDS §2.6]: per command word, per verb + table for DATA commands, per
// operation byte for CONTROL DEVICE (door-open may work where lock-down does not).
import { parseDataCommand } from './shared/command-line.js';

const TWO_WORDS = new Set(['CLEAR', 'RELOAD', 'SET', 'GET', 'VERIFY', 'CONTROL']);

export function capabilityKey(wire: string): string {
  const text = wire.trim();
  const data = parseDataCommand(text);
  if (data !== undefined) return `DATA ${data.verb} ${data.table}`;
  const words = text.split(/[ \t]+/);
  // split always yields at least one element
  const first = (words[0] as string).toUpperCase();
  if (!TWO_WORDS.has(first) || words.length < 2) return first;
  const second = (words[1] as string).toUpperCase();
  // [PUSH-v3 §11.5] AA = operation
  if (first === 'CONTROL' && second === 'DEVICE') return `CONTROL DEVICE ${(words[2] ?? '').slice(0, 2).toUpperCase()}`.trimEnd();
  return `${first} ${second}`;
}

/** [PUSH-v2 §7.3, PUSH-v3 §8.3] REBOOT, the v3 restart and UPGRADE end a getrequest batch. */
export function endsBatch(wire: string): boolean {
  return /^(?:REBOOT|UPGRADE)(?:\s|$)/i.test(wire) || /^CONTROL DEVICE 03/i.test(wire);
}
