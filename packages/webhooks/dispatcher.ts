import http from 'node:http';
import https from 'node:https';
import type { Knex } from 'knex';
import type { ConsumerSpec } from '../bus/consumer.js';
import { unixSeconds, type Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import { newId, publicEventId, randomBase62 } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { WebhookEndpoints } from '../domain/webhook-endpoint/commands.js';
import type { Owner } from '../domain/audit.js';
import type { Environment } from '../domain/merchant/events.js';
import type { RecordedEvent } from '../eventstore/port.js';
import { matchingEndpoints, type WebhookEndpointRow } from '../../projections/webhook-endpoints.js';
import { isPublicEventType } from '../domain/webhook-endpoint/event-types.js';
import type { Notifier } from './notifier.js';
import type { SecretBox } from '../core/secrets.js';
import { signatureHeader } from './signing.js';
import { pinnedLookup, resolveDeliveryTarget } from '../domain/webhook-endpoint/url-policy.js';

export const DISPATCH_CONSUMER = 'webhook-dispatcher';
/** Replays of an endpoint's failed deliveries reach back this far (events are kept at least this long). */
export const RETENTION_MS = 30 * 86_400_000;
const RESPONSE_EXCERPT_BYTES = 64 * 1024;

/** One attempt of one delivery, as its job names it (packages/processes/webhook-delivery.ts). */
export interface DeliveryJob {
  deliveryId: string;
  attempt: number;
}

export interface DispatcherDeps {
  knex: Knex;
  /** Enqueues an attempt in the given transaction, so a delivery row never exists without its job. */
  enqueueDelivery(db: Knex | Knex.Transaction, job: DeliveryJob, runAt: Date): Promise<void>;
  clock: Clock;
  log: Logger;
  box: SecretBox;
  endpoints: WebhookEndpoints;
  notifier: Notifier;
  /** Delays before retries 1..n (default 5 min, 30 min, 2 h, 8 h, 24 h). */
  retryScheduleMs: number[];
  allowPrivateUrls: boolean;
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

interface AttemptResult {
  status: number | null;
  error: string | null;
}

/** Endpoints whose connections one process keeps open (least recently used beyond that are closed). */
const KEPT_ENDPOINTS = 1000;
/** Connections kept open to one endpoint address: as many as deliveries run side by side. */
const SOCKETS_PER_ENDPOINT = 16;

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
      const options = { keepAlive: true, maxSockets: SOCKETS_PER_ENDPOINT, maxFreeSockets: SOCKETS_PER_ENDPOINT, scheduling: 'lifo' as const };
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

/** One HTTP POST, connected to the address the URL policy checked; no redirects are followed. */
function post(agent: http.Agent, url: URL, address: string, family: 4 | 6, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(address, family),
      agent,
    });
    const deadline = setTimeout(() => {
      request.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('response', (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > RESPONSE_EXCERPT_BYTES) res.destroy();
      });
      const status = res.statusCode ?? null;
      res.on('end', () => done({ status, error: null }));
      res.on('close', () => done({ status, error: null }));
      res.on('error', () => done({ status, error: null }));
    });
    request.on('error', (err) => done({ status: null, error: err.message }));
    request.end(body);
  });
}

/**
 * Turns public domain events into webhook events and deliveries (a bus consumer), and delivers
 * them (scheduler jobs): Standard Webhooks signatures, 15 s timeout, success = any 2xx, retries on
 * the schedule, then the endpoint is marked failing and the merchant gets one e-mail.
 */
export class WebhookDispatcher {
  private readonly agents = new EndpointAgents();

  constructor(private readonly deps: DispatcherDeps) {}

  /** Closes the connections kept open to endpoints. */
  close(): void {
    this.agents.close();
  }

  /** The bus consumer: each public event stored once, with one delivery per matching endpoint. */
  consumer(): ConsumerSpec {
    return {
      name: DISPATCH_CONSUMER,
      checkpointTable: 'bus_checkpoints',
      handle: async (trx, events) => {
        for (const event of events) await this.dispatch(trx, event);
      },
    };
  }

  private async dispatch(trx: Knex.Transaction, event: RecordedEvent): Promise<void> {
    const data = event.data as { object?: unknown } | null;
    const merchantId = event.metadata.merchant_id;
    const environment = event.metadata.environment;
    if (!isPublicEventType(event.type) || !data?.object || !merchantId || !environment) return;
    const id = publicEventId(event.eventId);
    const created = new Date(event.metadata.occurred_at ?? event.recordedAt);
    const payload = JSON.stringify({ id, object: 'event', type: event.type, created: unixSeconds(created), livemode: environment === 'live', data: data.object });
    const inserted = await trx('webhook_events')
      .insert({ id, source_event_id: event.eventId, merchant_id: merchantId, environment, type: event.type, payload, created_at: created })
      .onConflict('id')
      .ignore()
      .returning('id');
    if (inserted.length === 0) return; // already dispatched by an earlier run of this batch
    for (const endpoint of await matchingEndpoints(trx, merchantId, environment, event.type)) {
      await this.enqueue(trx, { eventId: id, endpoint, replayOf: null });
    }
  }

  private async enqueue(db: Knex | Knex.Transaction, d: { eventId: string; endpoint: WebhookEndpointRow; replayOf: string | null }): Promise<{ id: string; event_id: string; webhook_endpoint_id: string }> {
    const now = this.deps.clock.now();
    const id = `whd_${randomBase62(24)}`;
    await db('webhook_deliveries').insert({
      id,
      event_id: d.eventId,
      endpoint_id: d.endpoint.id,
      merchant_id: d.endpoint.merchant_id,
      environment: d.endpoint.environment,
      status: 'pending',
      replay_of: d.replayOf,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    });
    await this.deps.enqueueDelivery(db, { deliveryId: id, attempt: 1 }, now);
    return { id, event_id: d.eventId, webhook_endpoint_id: d.endpoint.id };
  }

  /** One attempt of one delivery (a scheduler job). A crash before the attempt is recorded means a resend, never a loss. */
  async deliver(deliveryId: string): Promise<void> {
    const { knex, clock } = this.deps;
    const d = await knex('webhook_deliveries').where({ id: deliveryId }).first<DeliveryRow | undefined>();
    // A job that died after recording the last failure resumes marking the endpoint failing.
    if (d?.status === 'failed' && !d.failure_noted) return this.noteFailure(d);
    if (!d || !['pending', 'retrying'].includes(d.status)) return;
    const now = clock.now();
    // A job that runs again after its attempt was recorded (the process stopped before the job was
    // removed, or the job failed after the record) must not send the next attempt before it is due.
    if (d.next_attempt_at && d.next_attempt_at.getTime() > now.getTime()) return;
    const endpoint = await knex('read.webhook_endpoints').where({ id: d.endpoint_id }).first<WebhookEndpointRow | undefined>();
    if (!endpoint || !endpoint.enabled) {
      await knex('webhook_deliveries').where({ id: d.id }).update({ status: 'skipped', next_attempt_at: null, updated_at: now });
      return;
    }
    const event = await knex('webhook_events').select('payload').where({ id: d.event_id }).first<{ payload: string }>();
    const secrets = [this.deps.box.open(endpoint.secret_sealed)];
    if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at.getTime() > now.getTime()) {
      secrets.push(this.deps.box.open(endpoint.previous_secret_sealed));
    }
    const attempt = d.attempts + 1;
    const timestamp = unixSeconds(now);
    const started = process.hrtime.bigint();
    let result: AttemptResult;
    try {
      const target = await resolveDeliveryTarget(endpoint.url, { environment: endpoint.environment, allowPrivate: this.deps.allowPrivateUrls });
      const url = new URL(endpoint.url);
      result = target.ok
        ? await post(
            this.agents.for(url, target.address),
            url,
            target.address,
            target.family,
            {
              'content-type': 'application/json',
              'user-agent': 'Sika-Webhooks/1.0',
              'webhook-id': d.event_id,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': signatureHeader(secrets, d.event_id, timestamp, event.payload),
            },
            event.payload,
            this.deps.timeoutMs,
          )
        : { status: null, error: `refused: ${target.message}` };
    } catch (err) {
      result = { status: null, error: err instanceof Error ? err.message : String(err) };
    }
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const schedule_ = this.deps.retryScheduleMs;
    const retryDelay = attempt <= schedule_.length ? schedule_[attempt - 1]! : null;
    const status = ok ? 'succeeded' : retryDelay !== null ? 'retrying' : 'failed';
    const nextAt = !ok && retryDelay !== null ? new Date(now.getTime() + retryDelay) : null;

    await knex.transaction(async (trx) => {
      await trx('webhook_attempts')
        .insert({ delivery_id: d.id, attempt, started_at: now, duration_ms: durationMs, response_status: result.status, error: ok ? null : (result.error ?? `HTTP ${result.status}`) })
        .onConflict(['delivery_id', 'attempt'])
        .merge();
      await trx('webhook_deliveries').where({ id: d.id }).update({ status, attempts: attempt, next_attempt_at: nextAt, updated_at: now });
      if (nextAt) await this.deps.enqueueDelivery(trx, { deliveryId: d.id, attempt: attempt + 1 }, nextAt);
    });

    if (ok && endpoint.failing) await this.deps.endpoints.markRecovered({ merchantId: endpoint.merchant_id, environment: endpoint.environment }, endpoint.id);
    if (status === 'failed') await this.noteFailure({ ...d, attempts: attempt });
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

  /**
   * POST /api/v1/webhook-replays: event + endpoint → that event to that endpoint; event only → to
   * every matching endpoint; endpoint only → every failed delivery of it within the retention window.
   */
  /**
   * Replays (docs/webhooks.md): an event to an endpoint; an event to every endpoint matching it;
   * an endpoint's failed deliveries; neither given: the failed deliveries of every enabled endpoint.
   */
  async replay(owner: Owner, input: { event_id?: string; webhook_endpoint_id?: string; reason?: string }) {
    const { knex } = this.deps;
    const scope = { merchant_id: owner.merchantId, environment: owner.environment };
    const event = input.event_id ? await knex('webhook_events').select('id', 'type').where({ id: input.event_id, ...scope }).first<{ id: string; type: string } | undefined>() : undefined;
    if (input.event_id && !event) throw new ApiError('IKW-RES-001', `No such event: '${input.event_id}'`, 'event_id');
    const endpoint = input.webhook_endpoint_id
      ? await knex('read.webhook_endpoints').where({ id: input.webhook_endpoint_id, ...scope }).first<WebhookEndpointRow | undefined>()
      : undefined;
    if (input.webhook_endpoint_id && !endpoint) throw new ApiError('IKW-RES-001', `No such webhook endpoint: '${input.webhook_endpoint_id}'`, 'webhook_endpoint_id');
    if (endpoint && !endpoint.enabled) throw new ApiError('IKW-RES-002', 'This webhook endpoint is disabled; enable it before replaying to it', 'webhook_endpoint_id');

    const queued = await knex.transaction(async (trx) => {
      if (event && endpoint) return [await this.enqueue(trx, { eventId: event.id, endpoint, replayOf: null })];
      if (event) {
        const targets = await matchingEndpoints(trx, owner.merchantId, owner.environment, event.type);
        return Promise.all(targets.map((e) => this.enqueue(trx, { eventId: event.id, endpoint: e, replayOf: null })));
      }
      if (endpoint) return this.replayFailed(trx, endpoint);
      const out = [];
      const endpoints = await trx('read.webhook_endpoints').where({ ...scope, enabled: true }).orderBy('seq');
      for (const e of endpoints as WebhookEndpointRow[]) out.push(...(await this.replayFailed(trx, e)));
      return out;
    });
    return {
      id: newId('whr'),
      object: 'webhook_replay',
      event_id: input.event_id ?? null,
      webhook_endpoint_id: input.webhook_endpoint_id ?? null,
      reason: input.reason ?? null,
      queued: queued.length,
      deliveries: queued,
      created: unixSeconds(this.deps.clock.now()),
      livemode: owner.environment === 'live',
    };
  }

  /** One replay per event whose deliveries to this endpoint all failed within the retention window. */
  private async replayFailed(trx: Knex.Transaction, endpoint: WebhookEndpointRow) {
    // An event that has since reached the endpoint (a replay that succeeded) or is on its way
    // (pending, retrying) is not sent again.
    const failed = (await trx('webhook_deliveries as d')
      .distinctOn('d.event_id')
      .select('d.id', 'd.event_id', 'd.created_at')
      .where({ 'd.endpoint_id': endpoint.id, 'd.status': 'failed' })
      .andWhere('d.created_at', '>=', new Date(this.deps.clock.now().getTime() - RETENTION_MS))
      .whereNotExists((q) =>
        q
          .select(trx.raw('1'))
          .from('webhook_deliveries as s')
          .whereRaw('s.endpoint_id = d.endpoint_id AND s.event_id = d.event_id')
          .whereIn('s.status', ['pending', 'retrying', 'succeeded']),
      )
      .orderBy([{ column: 'd.event_id' }, { column: 'd.created_at' }])) as { id: string; event_id: string; created_at: Date }[];
    failed.sort((x, y) => x.created_at.getTime() - y.created_at.getTime());
    const out = [];
    for (const f of failed) out.push(await this.enqueue(trx, { eventId: f.event_id, endpoint, replayOf: f.id }));
    return out;
  }
}
