import http from 'node:http';
import https from 'node:https';
import type { Knex } from 'knex';
import { unixSeconds, type Clock } from '#packages/core/clock.js';
import type { Cidr } from '#packages/core/cidr.js';
import type { SecretBox } from '#packages/core/secrets.js';
import type { Notifier } from '#packages/webhooks/notifier.js';
import { signatureHeader } from '#packages/webhooks/signing.js';
import { pinnedLookup, resolveDeliveryTarget } from '#packages/webhooks/url-policy.js';
import type { WebhookEndpoints } from './commands.js';
import { chunks } from './delivery-queue.js';
import type { WebhookEndpointRow } from './read/webhook-endpoints.js';
import type { Environment } from '#packages/core/owner.js';

const RESPONSE_EXCERPT_BYTES = 64 * 1024;
/** The start of an answer's body kept with its attempt (the deliveries API shows it), in bytes. */
export const ATTEMPT_BODY_BYTES = 4 * 1024;

/** One attempt of one delivery, as its job names it (packages/families/webhooks/processes/webhook-delivery.ts). */
export interface DeliveryJob {
  deliveryId: string;
  attempt: number;
}

export interface WebhookDelivererDeps {
  knex: Knex;
  /** Enqueues retries in the given transaction (one statement), so a retrying delivery never lacks its job. */
  enqueueDeliveries(db: Knex | Knex.Transaction, jobs: readonly { payload: DeliveryJob; runAt: Date }[]): Promise<void>;
  clock: Clock;
  box: SecretBox;
  /** Marks an endpoint failing after a delivery's last retry failed, and recovered when one succeeds again. */
  endpoints: WebhookEndpoints;
  notifier: Notifier;
  /** Delays before retries 1..n (default 5 min, 30 min, 2 h, 8 h, 24 h). */
  retryScheduleMs: number[];
  allowedPrivateRanges: readonly Cidr[];
  /** Whole-attempt deadline; 15 s by default. */
  timeoutMs: number;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  merchant_id: string;
  environment: Environment;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  failure_noted: boolean;
}

/** A delivery with its event's payload and its endpoint (null: the endpoint is gone). */
interface LoadedDelivery extends DeliveryRow {
  payload: string;
  endpoint: WebhookEndpointRow | null;
}

/** What one attempt did, as it is recorded. */
interface AttemptRecord {
  delivery: LoadedDelivery;
  endpoint: WebhookEndpointRow;
  attempt: number;
  durationMs: number;
  result: AttemptResult;
  ok: boolean;
  status: 'succeeded' | 'retrying' | 'failed';
  nextAt: Date | null;
}

interface AttemptResult {
  status: number | null;
  error: string | null;
  /** The first ATTEMPT_BODY_BYTES of the answer's body (null: no answer). */
  body?: string | null;
}

/** The kept start of an answer's body as text: invalid UTF-8 and NUL (which PostgreSQL text refuses) replaced. */
function bodyExcerpt(chunks: readonly Buffer[]): string {
  return Buffer.concat(chunks)
    .subarray(0, ATTEMPT_BODY_BYTES)
    .toString('utf8')
    .replace(/\u0000/g, '\uFFFD');
}

/** Endpoints whose connections one process keeps open (least recently used beyond that are closed). */
const KEPT_ENDPOINTS = 1000;
/** Connections kept open to one endpoint address, and requests in flight to it at once. */
const SOCKETS_PER_ENDPOINT = 16;
/**
 * How long a kept-alive connection may sit unused before it is closed. Node's agent also closes it
 * a second before the endpoint's own `Keep-Alive: timeout=N` hint ends, but reads that hint only
 * when this is set: without it, a request could go out on a connection the endpoint was closing.
 * (It does not cut requests short; their deadline is the attempt's.)
 */
const IDLE_CONNECTION_MS = 30_000;
/** Requests in flight at once over all endpoints of a batch. */
const REQUESTS_IN_FLIGHT = 128;

/** A counting semaphore: `run` waits until fewer than `n` calls are running. */
function limiter(n: number): <T>(f: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (f) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await f();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/**
 * Keep-alive connections per endpoint origin and checked address (docs/performance.md): a
 * delivery reuses an open connection to the address the URL policy let through for it, never one
 * made for another address (a DNS answer that changed gets connections of its own).
 */
class EndpointAgents {
  private readonly agents = new Map<string, http.Agent>();

  for(url: URL, address: string): http.Agent {
    const key = `${url.protocol}//${url.host}|${address}`;
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key);
    } else {
      const options = { keepAlive: true, maxSockets: SOCKETS_PER_ENDPOINT, maxFreeSockets: SOCKETS_PER_ENDPOINT, scheduling: 'lifo' as const, timeout: IDLE_CONNECTION_MS };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    }
    this.agents.set(key, agent);
    if (this.agents.size > KEPT_ENDPOINTS) {
      const [oldest, stale] = this.agents.entries().next().value!;
      this.agents.delete(oldest);
      stale.destroy();
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/** Where an endpoint's requests go, or why none is sent (recorded as the attempt's error). */
type DeliveryTarget = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; error: string };

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** An endpoint row read as JSON (to_jsonb): its timestamps back to dates. */
function endpointFromJson(e: WebhookEndpointRow): WebhookEndpointRow {
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  return { ...e, secret_created_at: date(e.secret_created_at)!, previous_secret_expires_at: date(e.previous_secret_expires_at), created_at: date(e.created_at)! };
}

/** A connection the endpoint closed under a request that had just gone out on it. */
const isReset = (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET' || err.code === 'EPIPE';

/**
 * One HTTP POST, connected to the address the URL policy checked; no redirects are followed. A
 * kept-alive connection the endpoint closes as the request goes out on it (its idle timeout ended
 * just then) is no failure of the endpoint: the request goes once more, on a new connection,
 * within the same deadline. The endpoint may see it twice, as at-least-once delivery allows.
 */
function post(agent: http.Agent, url: URL, address: string, family: 4 | 6, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const send = (via: http.Agent | false): http.ClientRequest => {
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(address, family),
        agent: via,
      });
      let answered = false;
      request.on('response', (res) => {
        answered = true;
        let read = 0;
        const kept: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          if (read < ATTEMPT_BODY_BYTES) kept.push(chunk.subarray(0, ATTEMPT_BODY_BYTES - read));
          read += chunk.length;
          if (read > RESPONSE_EXCERPT_BYTES) res.destroy();
        });
        const status = res.statusCode ?? null;
        const complete = () => done({ status, error: null, body: bodyExcerpt(kept) });
        res.on('end', complete);
        res.on('close', complete);
        res.on('error', complete);
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (via !== false && request.reusedSocket && !answered && !settled && isReset(err)) current = send(false);
        else done({ status: null, error: err.message });
      });
      request.end(body);
      return request;
    };
    let current = send(agent);
    const deadline = setTimeout(() => {
      current.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
}

/**
 * Delivers webhooks (the scheduler's delivery jobs): Standard Webhooks signatures, 15 s timeout,
 * success = any 2xx, retries on the schedule, then the endpoint is marked failing and the merchant
 * gets one e-mail.
 */
export class WebhookDeliverer {
  private readonly agents = new EndpointAgents();

  constructor(private readonly deps: WebhookDelivererDeps) {}

  /** Closes the connections kept open to endpoints. */
  close(): void {
    this.agents.close();
  }

  /**
   * The attempts these jobs name (one batch of jobs; no delivery twice): read together, sent side
   * by side, recorded in one transaction. An attempt already made is not made again (a job run
   * again after its record, or a first-attempts job left behind). Answers per job, in order: null
   * when it is done, an error when it must run again. A crash or a failed record before the record
   * commits means a resend of the batch, never a loss.
   */
  async deliverMany(jobs: readonly DeliveryJob[]): Promise<(Error | null)[]> {
    const { clock } = this.deps;
    const deliveryIds = jobs.map((j) => j.deliveryId);
    const attemptOf = new Map(jobs.map((j) => [j.deliveryId, j.attempt]));
    const loaded = await this.load(deliveryIds);
    const now = clock.now();
    const outcomes = new Map<string, Error | null>(deliveryIds.map((id) => [id, null]));
    const unnoted: LoadedDelivery[] = [];
    const skipped: string[] = [];
    const toSend: (LoadedDelivery & { endpoint: WebhookEndpointRow })[] = [];
    for (const d of loaded.values()) {
      // A job that died after recording the last failure resumes marking the endpoint failing.
      if (d.status === 'failed' && !d.failure_noted) unnoted.push(d);
      else if (!['pending', 'retrying'].includes(d.status) || d.attempts + 1 !== attemptOf.get(d.id)) continue;
      // A job that runs again after its attempt was recorded (the process stopped before the job was
      // removed, or the job failed after the record) must not send the next attempt before it is due.
      else if (d.next_attempt_at && d.next_attempt_at.getTime() > now.getTime()) continue;
      else if (!d.endpoint || !d.endpoint.enabled) skipped.push(d.id);
      else toSend.push({ ...d, endpoint: d.endpoint });
    }
    if (skipped.length > 0) await this.deps.knex('webhook_deliveries').whereIn('id', skipped).update({ status: 'skipped', next_attempt_at: null, updated_at: now });

    const records = await this.sendAll(toSend, now);
    if (records.length > 0) await this.record(records, now);

    // After the record: a failure here reruns the job, which finds the delivery done or resumes noting it.
    const recovered = new Map(records.filter((r) => r.ok && r.endpoint.failing).map((r) => [r.endpoint.id, r.endpoint]));
    for (const endpoint of recovered.values()) {
      try {
        await this.deps.endpoints.markRecovered({ merchantId: endpoint.merchant_id, environment: endpoint.environment }, endpoint.id);
      } catch (err) {
        for (const r of records) if (r.ok && r.endpoint.id === endpoint.id) outcomes.set(r.delivery.id, asError(err));
      }
    }
    const final = [...unnoted, ...records.filter((r) => r.status === 'failed').map((r) => ({ ...r.delivery, attempts: r.attempt }))];
    for (const d of final) {
      try {
        await this.noteFailure(d);
      } catch (err) {
        outcomes.set(d.id, asError(err));
      }
    }
    return deliveryIds.map((id) => outcomes.get(id) ?? null);
  }

  /** The deliveries, their events' payloads and their endpoints, in one query. */
  private async load(deliveryIds: readonly string[]): Promise<Map<string, LoadedDelivery>> {
    const { rows } = await this.deps.knex.raw<{ rows: (DeliveryRow & { payload: string; endpoint: WebhookEndpointRow | null })[] }>(
      `SELECT d.id, d.event_id, d.endpoint_id, d.merchant_id, d.environment, d.status, d.attempts, d.next_attempt_at, d.failure_noted,
              ev.payload, to_jsonb(e) AS endpoint
         FROM webhook_deliveries d
         JOIN webhook_events ev ON ev.id = d.event_id
         LEFT JOIN read.webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.id = ANY(?::text[])`,
      [[...deliveryIds]],
    );
    return new Map(rows.map((r) => [r.id, { ...r, endpoint: r.endpoint ? endpointFromJson(r.endpoint) : null }]));
  }

  /**
   * Signs and posts each delivery, side by side: up to SOCKETS_PER_ENDPOINT at once per endpoint
   * (a request's deadline starts when it is sent, not while it waits for a connection), the URL
   * policy checked and the secrets opened once per endpoint of the batch.
   */
  private async sendAll(deliveries: readonly (LoadedDelivery & { endpoint: WebhookEndpointRow })[], now: Date): Promise<AttemptRecord[]> {
    const overall = limiter(REQUESTS_IN_FLIGHT);
    const perEndpoint = new Map<string, { run: ReturnType<typeof limiter>; target: Promise<DeliveryTarget>; secrets: string[] }>();
    const timestamp = unixSeconds(now);
    return Promise.all(
      deliveries.map(async (d) => {
        const endpoint = d.endpoint;
        let shared = perEndpoint.get(endpoint.id);
        if (!shared) {
          shared = { run: limiter(SOCKETS_PER_ENDPOINT), target: this.target(endpoint), secrets: this.secretsOf(endpoint, now) };
          perEndpoint.set(endpoint.id, shared);
        }
        const { run, target, secrets } = shared;
        const attempt = d.attempts + 1;
        return run(() =>
          overall(async () => {
            const started = process.hrtime.bigint();
            let result: AttemptResult;
            try {
              const t = await target;
              result = t.ok
                ? await post(
                    this.agents.for(t.url, t.address),
                    t.url,
                    t.address,
                    t.family,
                    {
                      'content-type': 'application/json',
                      'user-agent': 'Sika-Webhooks/1.0',
                      'webhook-id': d.event_id,
                      'webhook-timestamp': String(timestamp),
                      'webhook-signature': signatureHeader(secrets, d.event_id, timestamp, d.payload),
                    },
                    d.payload,
                    this.deps.timeoutMs,
                  )
                : { status: null, error: t.error };
            } catch (err) {
              result = { status: null, error: asError(err).message };
            }
            const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
            const ok = result.status !== null && result.status >= 200 && result.status < 300;
            const schedule_ = this.deps.retryScheduleMs;
            const retryDelay = attempt <= schedule_.length ? schedule_[attempt - 1]! : null;
            const status = ok ? 'succeeded' : retryDelay !== null ? 'retrying' : 'failed';
            const nextAt = !ok && retryDelay !== null ? new Date(now.getTime() + retryDelay) : null;
            return { delivery: d, endpoint, attempt, durationMs, result, ok, status, nextAt } satisfies AttemptRecord;
          }),
        );
      }),
    );
  }

  /** Where an endpoint's requests of this batch go (the URL policy, DNS rebinding included); never rejects. */
  private async target(endpoint: WebhookEndpointRow): Promise<DeliveryTarget> {
    try {
      const target = await resolveDeliveryTarget(endpoint.url, { environment: endpoint.environment, allowedPrivateRanges: this.deps.allowedPrivateRanges });
      return target.ok ? { ...target, url: new URL(endpoint.url) } : { ok: false, error: `refused: ${target.message}` };
    } catch (err) {
      return { ok: false, error: asError(err).message };
    }
  }

  /** The secrets that sign at `now`: the current one, and the previous one for 24 h after a rotation. */
  private secretsOf(endpoint: WebhookEndpointRow, now: Date): string[] {
    const secrets = [this.deps.box.open(endpoint.secret_sealed)];
    if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at.getTime() > now.getTime()) {
      secrets.push(this.deps.box.open(endpoint.previous_secret_sealed));
    }
    return secrets;
  }

  /** The batch's attempts, delivery states and next attempts' jobs, in one transaction of three statements. */
  private async record(records: readonly AttemptRecord[], now: Date): Promise<void> {
    await this.deps.knex.transaction(async (trx) => {
      for (const chunk of chunks(records)) {
        const attempts = chunk.map((r) => ({
          delivery_id: r.delivery.id,
          attempt: r.attempt,
          duration_ms: r.durationMs,
          response_status: r.result.status,
          error: r.ok ? null : (r.result.error ?? `HTTP ${r.result.status}`),
          response_body: r.result.body ?? null,
        }));
        await trx.raw(
          `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error, response_body)
           SELECT delivery_id, attempt, ?, duration_ms, response_status, error, response_body
             FROM jsonb_to_recordset(?::jsonb) AS v(delivery_id text, attempt integer, duration_ms integer, response_status integer, error text, response_body text)
           ON CONFLICT (delivery_id, attempt) DO UPDATE
             SET started_at = excluded.started_at, duration_ms = excluded.duration_ms, response_status = excluded.response_status, error = excluded.error,
                 response_body = excluded.response_body`,
          [now, JSON.stringify(attempts)],
        );
        const states = chunk.map((r) => ({ id: r.delivery.id, status: r.status, attempts: r.attempt, next_attempt_at: r.nextAt?.toISOString() ?? null }));
        await trx.raw(
          `UPDATE webhook_deliveries d SET status = v.status, attempts = v.attempts, next_attempt_at = v.next_attempt_at, updated_at = ?
             FROM jsonb_to_recordset(?::jsonb) AS v(id text, status text, attempts integer, next_attempt_at timestamptz)
            WHERE d.id = v.id`,
          [now, JSON.stringify(states)],
        );
      }
      const retries = records.flatMap((r) => (r.nextAt ? [{ payload: { deliveryId: r.delivery.id, attempt: r.attempt + 1 }, runAt: r.nextAt }] : []));
      if (retries.length > 0) await this.deps.enqueueDeliveries(trx, retries);
    });
  }

  /**
   * After the last retry failed: the endpoint is marked failing and, on that transition only, the
   * merchant gets one notice. Until this has run, the delivery's job is kept (and resumes here).
   */
  private async noteFailure(d: DeliveryRow): Promise<void> {
    const endpoint = await this.deps.knex('read.webhook_endpoints').where({ id: d.endpoint_id }).first<WebhookEndpointRow | undefined>();
    if (endpoint && (await this.deps.endpoints.markFailing({ merchantId: endpoint.merchant_id, environment: endpoint.environment }, endpoint.id))) {
      await this.deps.notifier.endpointFailing(endpoint.merchant_id, endpoint.environment, { id: endpoint.id, url: endpoint.url }, d.attempts);
    }
    await this.deps.knex('webhook_deliveries').where({ id: d.id }).update({ failure_noted: true });
  }
}
