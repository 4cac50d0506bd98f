// The tables a simulated Security PUSH (v3) terminal knows: their columns and the condition keys a
// DATA DELETE / QUERY filter may use [PUSH-v3 §11.2–§11.4, COMMANDS §5].

import type { FieldList } from './wire-text.js';

/** tables the simulator accepts without keeping their rows */
export const OTHER_TABLES = new Set([
  'timezone',
  'holiday',
  'firstcard',
  'multimcard',
  'inoutfun',
  'extuser',
  'mulcarduser',
  'DevProperty',
  'DevParameters',
  'DoorProperty',
  'DoorParameters',
  'ReaderProperty',
  'ReaderParameters',
  'AuxIn',
  'AuxOut',
  'DSTSetting',
  'WGFormat',
]);

/** Known columns per table; any other key is refused with −621 so a v2 key (`Pri=`) sent to a v3
 *  device shows up instead of being dropped silently. */
export const COLUMNS: Readonly<Record<string, readonly string[]>> = {
  user: ['cardno', 'pin', 'password', 'group', 'starttime', 'endtime', 'name', 'privilege', 'disable', 'verify', 'devid'],
  userauthorize: ['pin', 'authorizetimezoneid', 'authorizedoorid', 'devid'],
  templatev10: ['pin', 'fingerid', 'valid', 'template', 'size', 'uid', 'resverd', 'endtag'],
  biodata: ['pin', 'no', 'index', 'valid', 'duress', 'type', 'majorver', 'minorver', 'format', 'tmp'],
  biophoto: ['pin', 'type', 'size', 'content', 'format', 'url', 'postbacktmpflag', 'filename'],
  userpic: ['pin', 'size', 'content', 'format', 'url', 'filename'],
};

/** Condition keys a DATA DELETE / QUERY filter may use per table. */
export const CONDITIONS: Readonly<Record<string, readonly string[]>> = {
  user: ['pin', 'cardno'],
  userauthorize: ['pin', 'authorizetimezoneid'],
  templatev10: ['pin', 'fingerid'],
  biodata: ['pin', 'type', 'no', 'index'],
  biophoto: ['pin', 'type'],
  userpic: ['pin'],
  transaction: ['pin'],
};

/** A key outside the allowed columns (compared case-insensitively). */
export const unknownKey = (f: FieldList, allowed: readonly string[]): boolean => f.keys.some((k) => !allowed.includes(k.toLowerCase()));
