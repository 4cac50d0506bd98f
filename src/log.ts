/**
 * The root logger (the only pino import). Redaction is set once here: tokens,
 * passwords, authorization headers and biometric template bytes never reach a log.
 */
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger;

/** Paths removed from every log line, wherever they appear in a logged object. */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.cookie',
  'token',
  '*.token',
  'adminToken',
  '*.adminToken',
  'password',
  '*.password',
  'comm_key',
  '*.comm_key',
  'template',
  '*.template',
  '*.templates',
  'tmp',
  '*.tmp',
  'content',
  '*.content',
  'body',
  '*.body',
] as const;

export interface LoggerOptions {
  readonly level: string;
  /** Where lines go; stdout when omitted. Tests pass a stream to inspect output. */
  readonly destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'biogate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
