import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON-lines logger. Credentials are redacted wherever they might appear. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'sika' },
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'authorization',
          'api_key',
          'secret',
          'password',
          '*.secret',
          '*.password',
        ],
        censor: '[redacted]',
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}
