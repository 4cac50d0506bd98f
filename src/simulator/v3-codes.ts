// Security PUSH (v3) return codes the simulated terminal answers with [PUSH-v3 §12]:
// −11 data parameter error, −12 execution error (failure injection),
// −13 unknown command (also an all-zero CONTROL DEVICE operand), −18 no space, −26 empty template,
// −27 template PIN not found, −28 door open refused during normal-open, −100 no such table,
// −101 unknown condition field, −102 malformed DATA line, −108 invalid OPTIONS, −621 field not
// supported, −629 bad table name in DATA QUERY, −726 server HTTP error while answering.

export const V3_CODES = {
  param: -11,
  /** failure injection: "command execution error" */
  busy: -12,
  unknown: -13,
  full: -18,
  emptyTemplate: -26,
  noUser: -27,
  normalOpen: -28,
  noTable: -100,
  noCondition: -101,
  malformed: -102,
  badOptions: -108,
  badField: -621,
  badQueryTable: -629,
  upgradeFailed: -720,
  httpError: -726,
} as const;
