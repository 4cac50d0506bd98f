// Attendance PUSH (v2) return codes the simulated terminal answers with [PUSH-v2 §8.5–§8.6].
// −1 parameter error / malformed line (also: no ATTLOG rows in range, F1), −2 photo size mismatch,
// −9 template Size ≠ length, −10 PIN not on the device, −11 illegal template, −1001 capacity,
// −1002 unknown or non-vendor syntax, −1004 table not on the model, −1005 device busy.

export const V2_CODES = {
  malformed: -1,
  noRecords: -1,
  photoSize: -2,
  sizeMismatch: -9,
  noUser: -10,
  badTemplate: -11,
  full: -1001,
  unknown: -1002,
  noTable: -1004,
  /** failure injection: "device busy" */
  busy: -1005,
} as const;
