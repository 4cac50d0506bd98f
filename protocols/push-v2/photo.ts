// ATTPHOTO uploads [PUSH-v2 §6.8]: LF-separated header lines, one NUL, then the JPEG bytes. Read as
// bytes, never as text. Also `/iclock/fdata`.
import type { AttendancePhoto, PhotoContent, RecordSource } from '../events.js';
import type { Decoded } from '../shared/decoded.js';
import { parseKeyValues } from '../shared/key-value.js';
import { splitLines } from '../shared/lines.js';
import { intOrNull } from '../shared/numbers.js';
import { decodeText } from '../shared/text.js';

export function decodeAttPhoto(body: Uint8Array, source: RecordSource): Decoded {
  const nul = body.indexOf(0);
  if (nul < 0) return { events: [{ type: 'unknownTable', source, body }], rejected: [] };
  const header = parseKeyValues(splitLines(decodeText(body.subarray(0, nul))), false);
  const fileName = header.pin?.trim() ?? '';
  if (fileName === '') return { events: [], rejected: [decodeText(body.subarray(0, nul))] };
  const content: PhotoContent = { encoding: 'binary', bytes: body.subarray(nul + 1) };
  const record = attendancePhoto(fileName, intOrNull(header.size), header.cmd?.trim() ?? '', content);
  return { events: [{ type: 'attendancePhotos', source, records: [record] }], rejected: [] };
}

/** File name `YYYYMMDDhhmmss-${pin}.jpg`, `YYYYMMDDhhmmss.jpg`, `YYYYMMDDhhmmss-0-${pin}-${id}.jpg`. */
export function attendancePhoto(fileName: string, size: number | null, cmd: string, content: PhotoContent): AttendancePhoto {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:-(.+?))?\.jpe?g$/i.exec(fileName);
  if (m === null) return { fileName, pin: '', time: '', size, cmd, content };
  const time = `${m[1] as string}-${m[2] as string}-${m[3] as string} ${m[4] as string}:${m[5] as string}:${m[6] as string}`;
  const suffix = m[7] ?? '';
  const idCard = /^0-([^-]+)-.+$/.exec(suffix);
  return { fileName, pin: idCard === null ? suffix : (idCard[1] as string), time, size, cmd, content };
}
