// Template values shared by both dialects [COMMANDS §3.9, §5.3–§5.4].
import type { EncodeFailure, SyncTemplate } from './commands.js';
import { invalid } from './preset-params.js';
import { isBase64 } from './shared/base64.js';
import { MAX_BIO_TYPE } from './shared/records.js';
import { fieldText, pinText } from './shared/values.js';

export interface TemplateData {
  readonly pin: string;
  readonly type: number;
  readonly no: number;
  readonly data: string;
}

/** PIN, type 0–255 (10 palm, higher = opaque future types), number ≥ 0 and base64 data (never send an unusable template [PUSH-v2 §6.4]). */
export function templateData(t: SyncTemplate): TemplateData | EncodeFailure {
  const pin = pinText(t.pin);
  if (typeof pin !== 'string') return pin;
  if (!Number.isInteger(t.type) || t.type < 0 || t.type > MAX_BIO_TYPE) return invalid('invalid biometric type');
  if (!Number.isInteger(t.no) || t.no < 0) return invalid('invalid template number');
  if (!isBase64(t.data)) return invalid('template data is not valid base64');
  return { pin, type: t.type, no: t.no, data: t.data };
}

export interface BiodataParts {
  readonly index: number;
  readonly duress: 0 | 1;
  readonly majorVer: string;
  readonly minorVer: string;
  readonly format: number;
}

/** [COMMANDS §5.4] MajorVer / MinorVer / Format / Index copied from the template as received. */
export function biodataParts(t: SyncTemplate): BiodataParts | EncodeFailure {
  if (t.majorVer === undefined || t.minorVer === undefined) return invalid('template has no algorithm version (MajorVer/MinorVer)');
  const majorVer = fieldText('majorVer', String(t.majorVer));
  const minorVer = fieldText('minorVer', String(t.minorVer));
  if (typeof majorVer !== 'string') return majorVer;
  if (typeof minorVer !== 'string') return minorVer;
  const index = t.index ?? 0;
  const format = t.format ?? 0;
  if (!Number.isInteger(index) || index < 0) return invalid('invalid template index');
  if (!Number.isInteger(format) || format < 0) return invalid('invalid template format');
  return { index, format, majorVer, minorVer, duress: t.duress === true ? 1 : 0 };
}
