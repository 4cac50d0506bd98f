// What a terminal reports holding for a user, compared with what BioGate would send it: an audit sends
// the user again when they differ [COMMANDS §5.1, PUSH-v3 §10.4]. Only fields both dialects report and
// the terminal keeps as sent are compared (name, privilege, card); a field the terminal did not report
// is not a difference.
import type { DeviceProfile, SyncUser } from '../commands.js';
import type { UserRecord } from '../event-records.js';
import { isFailure } from '../preset-params.js';
import { userFieldTexts } from './values.js';

/** A card as a number's digits: `0`, `00123` and `123` name the same card; empty and `0` are no card. */
const cardKey = (card: string): string => card.trim().replace(/^0+/, '');

/** The fields of `held` that differ from what `wanted` renders to on this terminal; [] when it matches. */
export function heldUserDiffers(held: UserRecord, wanted: SyncUser, profile: DeviceProfile): readonly string[] {
  const texts = userFieldTexts(wanted, profile);
  // A user BioGate cannot render is not sent by an audit either (its sync op reports why).
  if (isFailure(texts)) return [];
  const differs: string[] = [];
  if (held.name.trim() !== texts.name.trim()) differs.push('name');
  if (held.privilege !== null && held.privilege !== texts.privilege) differs.push('privilege');
  if (cardKey(held.cardNo) !== cardKey(texts.card)) differs.push('card');
  return differs;
}
