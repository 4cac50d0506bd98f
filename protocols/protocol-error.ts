// The one exception protocols/ throws. Decoding malformed device input never throws anything else:
// request-level problems (no SN, unknown endpoint) raise a ProtocolError; record-level problems are
// counted in DecodeResult.rejected and never thrown.

export type ProtocolErrorCode =
  /** the request has no `SN` query parameter [PUSH-v2 §2.1] */
  | 'MISSING_SN'
  /** the serial number contains characters that cannot be echoed safely (controls, spaces) or is too long */
  | 'INVALID_SN'
  /** the path is not an endpoint of either protocol generation [PUSH-v2 §3, PUSH-v3 §2] */
  | 'UNKNOWN_ENDPOINT'
  /** a query parameter the endpoint needs is missing (querydata `cmdid`, tabledata `tablename` …) */
  | 'MISSING_PARAMETER'
  /** a query parameter that is echoed into the reply contains characters that would break it */
  | 'INVALID_PARAMETER'
  /** an IANA time zone name that Intl does not know */
  | 'INVALID_TIME_ZONE'
  /** a reply builder got an argument it cannot render (e.g. a command line containing LF) */
  | 'INVALID_ARGUMENT';

export class ProtocolError extends Error {
  readonly code: ProtocolErrorCode;

  constructor(code: ProtocolErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtocolError';
    this.code = code;
  }
}
