import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import type { Environment } from '#packages/core/owner.js';
import type { StatementLanguage } from './document.js';

/** How long a download link works: a day, long enough to pass a statement on to an accountant. */
export const DOWNLOAD_LINK_TTL_MS = 86_400_000;

export type StatementFormat = 'csv' | 'pdf';

/** What a download link names: one statement of one merchant and environment, as one file. */
export interface StatementDownload {
  merchantId: string;
  environment: Environment;
  statementId: string;
  format: StatementFormat;
  lang: StatementLanguage;
  /** Unix seconds after which the link is refused. */
  expiresAt: number;
}

/**
 * Links to a statement's file that need no credential for a day (docs/statements.md, "Download
 * links"): the link carries what it names and when it ends, signed with a key derived from the
 * secrets key, so nothing is stored and a link cannot be made to name another statement or last
 * longer.
 */
export class StatementDownloadLinks {
  private readonly key: Buffer;

  constructor(
    private readonly clock: Clock,
    secretsKey: Buffer,
  ) {
    this.key = createHmac('sha256', secretsKey).update('sika:statement-download:v1').digest();
  }

  /** The link's token and when it stops working. */
  issue(download: Omit<StatementDownload, 'expiresAt'>): { token: string; expiresAt: number } {
    const expiresAt = Math.floor((this.clock.now().getTime() + DOWNLOAD_LINK_TTL_MS) / 1000);
    const payload = Buffer.from(JSON.stringify([download.merchantId, download.environment, download.statementId, download.format, download.lang, expiresAt])).toString('base64url');
    return { token: `${payload}.${this.signature(payload)}`, expiresAt };
  }

  /** What a token names, or undefined for a forged, altered or expired one. */
  read(token: string): StatementDownload | undefined {
    const [payload, signature, ...rest] = token.split('.');
    if (payload === undefined || signature === undefined || rest.length > 0) return undefined;
    // Compared as written: a second spelling of the signature is no link (core/jwt.ts says why).
    const expected = Buffer.from(this.signature(payload));
    if (expected.length !== signature.length || !timingSafeEqual(expected, Buffer.from(signature))) return undefined;
    const [merchantId, environment, statementId, format, lang, expiresAt] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, Environment, string, StatementFormat, StatementLanguage, number];
    if (expiresAt * 1000 <= this.clock.now().getTime()) return undefined;
    return { merchantId, environment, statementId, format, lang, expiresAt };
  }

  private signature(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
