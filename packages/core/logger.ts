import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON-lines logger. Credentials and payers' one-time codes are redacted wherever they might appear. */
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
          // A payer's one-time code (docs/payments.md, "Next actions"): never logged, should a request or a body be.
          'otp',
          '*.otp',
          '*.paymentMethod.otp',
          '*.*.paymentMethod.otp',
          'confirmationCode',
          '*.confirmationCode',
        ],
        censor: '[redacted]',
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}
