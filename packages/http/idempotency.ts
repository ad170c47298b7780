import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { instanceIsDead, type ProcessInstance } from '#packages/core/instance.js';
import { ApiError } from '#packages/core/errors.js';
import { canonicalJson } from '#packages/core/json.js';
import { sqlMigration, type Migration } from '#packages/core/migration.js';
import type { SecretBox } from '#packages/core/secrets.js';
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
  // Answers belong to the credential that asked (API key id, or `user:<id>`); rows written before
  // keep '' (LEGACY_CREDENTIAL) and replay to the merchant, as they did, until they expire.
  sqlMigration(
    'idempotency/003-credential',
    `ALTER TABLE idempotency_keys ADD COLUMN credential text NOT NULL DEFAULT '';
      ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
      ALTER TABLE idempotency_keys ADD PRIMARY KEY (merchant_id, environment, credential, method, path, key)`,
  ),
];

/**
 * The credential of rows stored before answers were scoped by credential. Such a row stands for
 * the whole merchant (as it did when written): a retry across the upgrade is still a replay, not a
 * second payout. None is left once IDEMPOTENCY_TTL has passed since the upgrade.
 */
const LEGACY_CREDENTIAL = '';

/** A first request that has not answered within this long is taken to have died (crash, kill). */
export const ABANDONED_AFTER_MS = 60_000;

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

type Scope = Record<'merchant_id' | 'environment' | 'credential' | 'method' | 'path' | 'key', string>;

/** What a sealed answer is bound to: it opens only in its own row, with its own status. */
function sealContext(scope: Scope, status: number): string {
  const row = [scope.merchant_id, scope.environment, ...(scope.credential === LEGACY_CREDENTIAL ? [] : [scope.credential]), scope.method, scope.path, scope.key];
  return JSON.stringify(['idempotency', ...row, status]);
}

/**
 * Durable idempotency (docs/architecture.md, "HTTP conventions"): scope merchant × environment ×
 * credential × method × path, so a member or key reusing another's key gets no answer of theirs
 * (some hold secrets or tokens); the first complete answer is stored and replayed byte for byte;
 * same key with another body → 422; same key while the first still runs → 409 (retryable).
 *
 * `requestRef`, which names the objects a create makes, stays the key and the body's fingerprint,
 * scoped by the commands to the merchant: a retry with another key of the merchant (a key rolled
 * meanwhile) lands on the object the first attempt made rather than making a second one.
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
    const own: Scope = { merchant_id: principal.merchantId, environment: principal.environment, credential: principal.actor, method, path, key };
    const legacy: Scope = { ...own, credential: LEGACY_CREDENTIAL };
    const requestHash = createHash('sha256')
      .update(canonicalJson(body ?? null))
      .digest('hex');
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      // One statement: the credential's row, unless a legacy row of the merchant holds the key.
      const { rows: inserted } = await this.knex.raw<{ rows: unknown[] }>(
        `INSERT INTO idempotency_keys (merchant_id, environment, credential, method, path, key, request_hash, state, locked_at, locked_by, expires_at)
         SELECT :merchant_id, :environment, :credential, :method, :path, :key, :request_hash, 'running', :now::timestamptz, :locked_by::integer, :expires_at::timestamptz
         WHERE NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE merchant_id = :merchant_id AND environment = :environment AND credential = :legacy AND method = :method AND path = :path AND key = :key)
         ON CONFLICT (merchant_id, environment, credential, method, path, key) DO NOTHING
         RETURNING key`,
        { ...own, legacy: LEGACY_CREDENTIAL, request_hash: requestHash, now, locked_by: this.instance?.id ?? null, expires_at: new Date(now.getTime() + this.ttlMs) },
      );
      if (inserted.length === 1) return this.runner(own, now, requestHash);

      const row = await this.knex('idempotency_keys')
        .where({ merchant_id: own.merchant_id, environment: own.environment, method, path, key })
        .whereIn('credential', [own.credential, LEGACY_CREDENTIAL])
        .orderByRaw('credential = ? DESC', [LEGACY_CREDENTIAL])
        .first<(Row & { credential: string }) | undefined>();
      if (!row) continue; // deleted between our insert and read: try again
      const scope = row.credential === LEGACY_CREDENTIAL ? legacy : own;
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
      throw new Error(`A stored idempotent answer cannot be opened (was SECRETS_KEY changed?): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
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
