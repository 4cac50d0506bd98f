// The simulator's one error type: a code says what went wrong with the exchange.

export type SimulatorErrorCode =
  /** the connection failed */
  | 'network'
  /** no reply within the request timeout */
  | 'timeout'
  /** stop() or the caller's signal aborted the request */
  | 'aborted'
  /** the server answered with an unexpected HTTP status */
  | 'http'
  /** the reply broke the protocol (wrong handshake line, missing RegistryCode, …) */
  | 'protocol'
  /** registration refused with HTTP 406 [PUSH-v3 §3.3] */
  | 'refused';

export class SimulatorError extends Error {
  readonly code: SimulatorErrorCode;

  constructor(code: SimulatorErrorCode, message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'SimulatorError';
    this.code = code;
  }
}

/** A request cut short by stop() or the caller's signal: not a failure of the exchange. */
export const isAbort = (err: unknown): boolean => err instanceof SimulatorError && err.code === 'aborted';
