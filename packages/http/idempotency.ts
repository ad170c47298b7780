import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../core/clock.js';
import { instanceIsDead, type ProcessInstance } from '../core/instance.js';
import { ApiError } from '../core/errors.js';
import { canonicalJson } from '../core/json.js';
import { sqlMigration, type Migration } from '../core/migration.js';
import type { SecretBox } from '../core/secrets.js';
import type { Principal } from './context.js';

export const idempotencyMigrations: Migration[] = [
  sqlMigration(
    'idempotency/001-create',
    `CREATE TABLE idempotency_keys (
        merchant_id text NOT NULL,
        environment text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'done')),
        status integer,
        body text,
        locked_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (merchant_id, environment, method, path, key)
      );
      CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`,
  ),
  // Which process instance runs a claimed request: a dead one's keys are taken over at once.
  sqlMigration('idempotency/002-locked-by', `ALTER TABLE idempotency_keys ADD COLUMN locked_by integer`),
  // Answers are sealed from now on; rows written before stay in clear (false) and replay as they are until they expire.
  sqlMigration('idempotency/002-body-sealed', `ALTER TABLE idempotency_keys ADD COLUMN body_sealed boolean NOT NULL DEFAULT false`),
];

/** A first request that has not answered within this long is taken to have died (crash, kill). */
const ABANDONED_AFTER_MS = 60_000;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export interface StoredAnswer {
  status: number;
  body: string;
}

/** What the route runner must do with a request that carries an Idempotency-Key. */
export type Claim =
  | {
      kind: 'run';
      /** The key with the body's fingerprint: the same on every retry of this request, another for any other request. */
      requestRef: string;
      complete(answer: StoredAnswer, keep: boolean): Promise<void>;
    }
  | { kind: 'replay'; answer: StoredAnswer };

interface Row {
  request_hash: string;
  state: 'running' | 'done';
  status: number | null;
  body: string | null;
  body_sealed: boolean;
  locked_at: Date;
  expires_at: Date;
}

type Scope = Record<'merchant_id' | 'environment' | 'method' | 'path' | 'key', string>;

/** What a sealed answer is bound to: it opens only in its own row, with its own status. */
function sealContext(scope: Scope, status: number): string {
  return JSON.stringify(['idempotency', scope.merchant_id, scope.environment, scope.method, scope.path, scope.key, status]);
}

/**
 * Durable idempotency (docs/architecture.md, "HTTP conventions"): scope merchant × environment × method × path;
 * the first complete answer is stored and replayed byte for byte; same key with another body → 422;
 * same key while the first still runs → 409 (retryable).
 *
 * Every stored answer is sealed with the secret box: some carry secrets shown once (a webhook
 * endpoint's signing secret), and the others carry customer data the table need not hold in clear.
 */
export class IdempotencyStore {
  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly box: SecretBox,
    /** This process; without one, a claim of a crashed request is taken over only after ABANDONED_AFTER_MS. */
    private readonly instance: ProcessInstance | null = null,
  ) {}

  static validateKey(key: string): void {
    if (!KEY_SHAPE.test(key)) throw new ApiError('IKW-IDM-001', undefined, 'Idempotency-Key');
  }

  async claim(principal: Principal, method: string, path: string, key: string, body: unknown): Promise<Claim> {
    IdempotencyStore.validateKey(key);
    const scope: Scope = { merchant_id: principal.merchantId, environment: principal.environment, method, path, key };
    const requestHash = createHash('sha256').update(canonicalJson(body ?? null)).digest('hex');
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      const inserted = await this.knex('idempotency_keys')
        .insert({
          ...scope,
          request_hash: requestHash,
          state: 'running',
          locked_at: now,
          locked_by: this.instance?.id ?? null,
          expires_at: new Date(now.getTime() + this.ttlMs),
        })
        .onConflict(['merchant_id', 'environment', 'method', 'path', 'key'])
        .ignore()
        .returning('key');
      if (inserted.length === 1) return this.runner(scope, now, requestHash);

      const row = await this.knex('idempotency_keys').where(scope).first<Row | undefined>();
      if (!row) continue; // deleted between our insert and read: try again
      if (row.expires_at.getTime() <= now.getTime()) {
        await this.knex('idempotency_keys').where(scope).andWhere('expires_at', '<=', now).delete();
        continue;
      }
      if (row.request_hash !== requestHash) throw new ApiError('IKW-IDM-002', undefined, 'Idempotency-Key');
      if (row.state === 'done') return { kind: 'replay', answer: this.storedAnswer(scope, row) };
      // The first attempt died without answering (its process is gone, or it has been silent too
      // long): take the key over; exactly one taker wins. A live first attempt is still running: 409.
      const stale = this.knex('idempotency_keys').where({ ...scope, state: 'running', locked_at: row.locked_at });
      if (now.getTime() - row.locked_at.getTime() < ABANDONED_AFTER_MS) stale.andWhereRaw(instanceIsDead('locked_by'));
      const taken = await stale.update({ locked_at: now, locked_by: this.instance?.id ?? null });
      if (taken === 1) return this.runner(scope, now, requestHash);
      throw new ApiError('IKW-IDM-003');
    }
    throw new ApiError('IKW-IDM-003');
  }

  private storedAnswer(scope: Scope, row: Row): StoredAnswer {
    const status = row.status!;
    if (!row.body_sealed) return { status, body: row.body! };
    try {
      return { status, body: this.box.open(row.body!, sealContext(scope, status)) };
    } catch (err) {
      throw new Error(`A stored idempotent answer cannot be opened (was SECRETS_KEY changed?): ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private runner(scope: Scope, lockedAt: Date, requestHash: string): Claim {
    return {
      kind: 'run',
      requestRef: `${scope.key}|${requestHash}`,
      complete: async (answer, keep) => {
        const mine = this.knex('idempotency_keys').where({ ...scope, state: 'running', locked_at: lockedAt });
        if (keep) await mine.update({ state: 'done', status: answer.status, body: this.box.seal(answer.body, sealContext(scope, answer.status)), body_sealed: true });
        else await mine.delete();
      },
    };
  }

  /** Removes expired keys; called by the scheduler. */
  async purgeExpired(): Promise<number> {
    return this.knex('idempotency_keys').where('expires_at', '<=', this.clock.now()).delete();
  }
}
