// User photo lines [PUSH-v3 §11.2, §11.3; PUSH-v2 §9 (`DATA UPDATE USERPIC`, `BIOPHOTO`); COMMANDS §6].
import type { DeviceProfile, EncodeResult, SyncOp } from '../commands.js';
import { wire } from '../preset-common.js';
import { invalid, isFailure } from '../preset-params.js';
import { isBase64 } from './base64.js';
import { photoTable } from './profile.js';
import { pinText } from './values.js';

type PhotoOp = Extract<SyncOp, { op: 'photo.upsert' | 'photo.delete' }>;

/** The visible-light face type a comparison photo is enrolled as [COMMANDS §3.9]. */
const FACE_PHOTO_TYPE = 9;

/**
 * `Size` is the length of the base64 `Content`, as terminals report it in their own uploads
 * [PUSH-v3 §7.4: `size=95040` beside `content=`] (inferred). v2 keeps the table names upper-case.
 */
export function encodePhoto(op: PhotoOp, profile: DeviceProfile, dialect: 'v2' | 'v3'): EncodeResult {
  const pin = pinText(op.pin);
  if (isFailure(pin)) return pin;
  const table = photoTable(profile);
  if (table === undefined) return invalid('the terminal reports no photo support (BioPhotoFun, PhotoFunOn, UserPicURLFunOn)');
  const v2 = dialect === 'v2';
  if (op.op === 'photo.delete')
    return v2
      ? wire(`DATA DELETE BIOPHOTO PIN=${pin}`, `DATA DELETE USERPIC PIN=${pin}`)
      : wire(`DATA DELETE biophoto PIN=${pin}`, `DATA DELETE userpic pin=${pin}`);
  const content = op.photo.data;
  if (content === '' || !isBase64(content)) return invalid('invalid photo data');
  const size = content.length;
  if (table === 'biophoto')
    return wire(
      `DATA UPDATE ${v2 ? 'BIOPHOTO' : 'biophoto'} PIN=${pin}\tType=${FACE_PHOTO_TYPE}\tSize=${size}\tContent=${content}\tFormat=0\tUrl=\tPostBackTmpFlag=0`,
    );
  return v2
    ? wire(`DATA UPDATE USERPIC PIN=${pin}\tSize=${size}\tContent=${content}`)
    : wire(`DATA UPDATE userpic pin=${pin}\tsize=${size}\tformat=0\turl=\tcontent=${content}`);
}
