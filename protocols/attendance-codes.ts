// Names of the numeric codes of an attendance punch [PUSH-v2 §6.3]. The numbers are what is stored
// and what the API's `status` and `verify` carry; the names are a reading aid (`status_label`,
// `verify_label`). Unknown codes have no name (null): status values above 5 are user-defined
// function keys, and many firmwares use a shorter, different verify set [PUSH-v2 §6.3 caveat].

/** [PUSH-v2 §6.3] Status (attendance state). */
export const ATTENDANCE_STATUS: Readonly<Record<number, string>> = {
  0: 'check-in',
  1: 'check-out',
  2: 'break-out',
  3: 'break-in',
  4: 'overtime-in',
  5: 'overtime-out',
};

/** [PUSH-v2 §6.3] Verify (verification mode), the B appendix 7 table. */
export const VERIFY_MODES: Readonly<Record<number, string>> = {
  0: 'any',
  1: 'fingerprint',
  2: 'user-id',
  3: 'password',
  4: 'card',
  5: 'fingerprint/password',
  6: 'fingerprint/card',
  7: 'card/password',
  8: 'user-id+fingerprint',
  9: 'fingerprint+password',
  10: 'card+fingerprint',
  11: 'card+password',
  12: 'fingerprint+password+card',
  13: 'user-id+fingerprint+password',
  14: 'user-id+fingerprint/card+fingerprint',
  15: 'face',
  16: 'face+fingerprint',
  17: 'face+password',
  18: 'face+card',
  19: 'face+fingerprint+card',
  20: 'face+fingerprint+password',
  21: 'finger-vein',
  22: 'finger-vein+password',
  23: 'finger-vein+card',
  24: 'finger-vein+password+card',
  25: 'palm',
  26: 'palm+card',
  27: 'palm+face',
  28: 'palm+fingerprint',
  29: 'palm+fingerprint+face',
  200: 'other',
};

export const attendanceStatusLabel = (code: number): string | null => ATTENDANCE_STATUS[code] ?? null;
export const verifyModeLabel = (code: number): string | null => VERIFY_MODES[code] ?? null;
