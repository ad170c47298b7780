import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { anyCidrContains, parseCidrList, parseIp } from '#packages/core/cidr.js';
import { generateSigningSecret } from '#packages/core/secrets.js';
import { matchesTypeFilter } from '#packages/core/public-events.js';
import { signatureHeader } from '#packages/webhooks/signing.js';

/**
 * `sika listen`: follows a merchant's events through the events API (long polling on
 * GET /api/v1/events) and POSTs each to a local URL, signed as a webhook (Standard Webhooks), so the
 * receiver's production verification code runs unchanged. It needs no tunnel: it only makes
 * outgoing requests. The signing secret and where it stopped are kept in a state file, per service
 * and key, so a restart resumes there (within the events' 30 days) and signs what it catches up on
 * with the secret the receiver already has. docs/webhooks.md, "sika listen".
 */
export interface ListenOptions {
  apiBase: string;
  apiKey: string;
  forwardTo: string;
  /** Type filters (`payout.*`, `payment_intent.succeeded`); none: every event. */
  events: string[];
  /** Where the signing secret and the position are kept between sessions. */
  statePath: string;
  /** Replace the kept signing secret with a new one. */
  newSecret: boolean;
  /** Lines for the person watching: one per delivery. */
  out(line: string): void;
  /** Notices and errors. */
  err(line: string): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Seconds each poll waits for a new event (the events API allows 30). */
  waitSeconds?: number;
  /** The first wait before asking a service that did not answer again, doubled each time up to 30 s (default 1 s). */
  firstRetryMs?: number;
}

interface PublicEvent {
  id: string;
  type: string;
}

interface EventList {
  data: PublicEvent[];
  has_more: boolean;
}

/** The API answered with an error body (docs/errors.md). */
class ApiAnswer extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly param: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

const PAGE = 100;

/** What a failed fetch says: its cause (ECONNREFUSED …) rather than "fetch failed". */
const reason = (err: unknown): string => (err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err));
const MAX_BACKOFF_MS = 30_000;
const isRedirect = (status: number): boolean => status >= 300 && status < 400;

const LOOPBACK = parseCidrList('127.0.0.0/8, ::1');

/** Whether a URL's host is this machine: a `localhost` name (RFC 6761) or a loopback address. */
function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  const address = parseIp(hostname);
  return address !== null && anyCidrContains(LOOPBACK, address);
}

/**
 * Why the API base is refused, or null: the key goes in every request's header, so plain http is
 * for a service on this machine only, where nothing crosses a network.
 */
export function apiBaseProblem(apiBase: string): string | null {
  let url: URL;
  try {
    url = new URL(apiBase);
  } catch {
    return `--api-base "${apiBase}" is not a URL`;
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol !== 'http:') return `--api-base must be an https:// URL, not ${url.protocol}`;
  if (isLoopbackHost(url.hostname)) return null;
  return `--api-base ${url.origin} is plain http to another machine: the API key would cross the network in clear. Use https://, or http:// on this machine (localhost, 127.0.0.1, [::1])`;
}

/** The state file's entry for this service and key (the key itself is never written). */
function stateKey(apiBase: string, apiKey: string): string {
  return `${apiBase.replace(/\/+$/, '')} ${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}

/** What is kept per service and key: the secret deliveries are signed with, and the last event handled. */
export interface Session {
  signing_secret: string | null;
  last_event_id: string | null;
}

async function readState(file: string): Promise<Record<string, unknown>> {
  try {
    const state = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof state === 'object' && state !== null && !Array.isArray(state) ? (state as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The session kept for `key`; an entry of earlier versions is the last event id alone. */
async function readSession(file: string, key: string): Promise<Session> {
  const entry = (await readState(file))[key];
  if (typeof entry === 'string') return { signing_secret: null, last_event_id: entry };
  const kept = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { signing_secret: text(kept.signing_secret), last_event_id: text(kept.last_event_id) };
}

/**
 * Writes the session through a temporary file renamed over the state file. The directory it makes
 * is the user's alone (0700); the temporary file has an unguessable name and is created, never
 * opened if it exists ('wx'), so nothing planted beside a state file in a shared directory (a
 * symlink to another file) is written through.
 */
export async function saveSession(file: string, key: string, session: Session): Promise<void> {
  const state = await readState(file);
  state[key] = session;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

/** Whether asking again may get an answer: none came (no connection, a body cut short), or a 429 or 5xx did. */
function unanswered(err: unknown): boolean {
  return !(err instanceof ApiAnswer) || err.status === 429 || err.status >= 500;
}

export async function listen(o: ListenOptions): Promise<void> {
  try {
    await follow(o);
  } catch (err) {
    if (!o.signal.aborted) throw err; // Ctrl-C: whatever was under way stops, and so does the command
  }
}

async function follow(o: ListenOptions): Promise<void> {
  const base = o.apiBase.replace(/\/+$/, '');
  const key = stateKey(base, o.apiKey);
  const wait = o.waitSeconds ?? 25;
  const firstRetryMs = o.firstRetryMs ?? 1_000;

  // Kept before the first request, so the secret shown is the one of every later start, even if this one never connects.
  const kept = await readSession(o.statePath, key);
  const secret = o.newSecret || kept.signing_secret === null ? generateSigningSecret() : kept.signing_secret;
  if (secret !== kept.signing_secret) {
    await saveSession(o.statePath, key, { ...kept, signing_secret: secret });
    o.err(kept.signing_secret === null ? `A new signing secret, kept for ${base} and this key in ${o.statePath}.` : 'A new signing secret replaces the one kept (--new-secret): give it to your receiver.');
  }
  o.out(`Signing secret: ${secret}`);

  const get = async (query: URLSearchParams): Promise<EventList> => {
    // Redirects are not followed: the key would go along to wherever they point.
    const res = await fetch(`${base}/api/v1/events?${query}`, { headers: { authorization: `Bearer ${o.apiKey}`, 'user-agent': 'sika-listen' }, redirect: 'manual', signal: o.signal }).catch((err: unknown) => {
      if (o.signal.aborted) throw err;
      throw new Error(`${base} did not answer: ${reason(err)}`);
    });
    if (isRedirect(res.status)) {
      await res.arrayBuffer();
      throw new ApiAnswer(res.status, undefined, undefined, `${base} answered ${res.status} to ${res.headers.get('location') ?? '(no location)'}, which is not followed; give the service's own address as --api-base`);
    }
    const text = await res.text();
    if (res.ok) return JSON.parse(text) as EventList;
    let body: { code?: string; param?: string; message?: string } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // not an error body of the API: the status says enough
    }
    throw new ApiAnswer(res.status, body.code, body.param, `${res.status} ${body.code ?? ''} ${body.message ?? text.slice(0, 200)}`.trim());
  };

  /**
   * `ask()` until the service answers: while it does not (not up yet, restarting, overloaded), one
   * line says so, then it asks again after 1 s, 2 s, … up to 30 s. Any other refusal (a bad key, a
   * mistyped filter, a redirect) is thrown: asking again would get the same.
   */
  const answered = async <T>(ask: () => Promise<T>): Promise<T> => {
    for (let backoff = firstRetryMs, said = false; ; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS), said = true) {
      try {
        return await ask();
      } catch (err) {
        if (o.signal.aborted || !unanswered(err)) throw err;
        if (!said) o.err(`${reason(err)}; asking again after ${firstRetryMs / 1000} s, then less often (up to every ${MAX_BACKOFF_MS / 1000} s) until it answers.`);
        await delay(backoff, undefined, { signal: o.signal });
      }
    }
  };

  // The filters are checked by the API once, so a mistyped one stops here rather than matching nothing.
  if (o.events.length > 0) await answered(() => get(new URLSearchParams({ type: o.events.join(','), limit: '1' })));

  const newest = () => answered(async () => (await get(new URLSearchParams({ limit: '1' }))).data[0]?.id ?? null);
  let cursor = kept.last_event_id;
  if (cursor === null) {
    cursor = await newest();
    o.err('Listening for new events.');
  } else {
    o.err(`Resuming after ${cursor}.`);
  }
  o.err(`Forwarding to ${o.forwardTo}${o.events.length > 0 ? ` (${o.events.join(', ')})` : ''}. Ctrl-C stops.`);

  while (!o.signal.aborted) {
    const query = new URLSearchParams({ limit: String(PAGE), wait: String(wait) });
    if (cursor !== null) query.set('ending_before', cursor);
    let page: EventList;
    try {
      page = await answered(() => get(query));
    } catch (err) {
      if (!(err instanceof ApiAnswer && err.param === 'ending_before')) throw err;
      // The saved event is gone (older than 30 days): go on from the newest.
      o.err(`${cursor} is no longer in the events API (30 days); listening for new events.`);
      cursor = await newest();
      continue;
    }
    // Newest first: the ones right after the cursor, so handled from the last.
    for (const event of [...page.data].reverse()) {
      if (o.signal.aborted) break;
      // Filtered here, with the events API's own rule, so the position stays one of the unfiltered list.
      if (o.events.length === 0 || o.events.some((f) => matchesTypeFilter(f, event.type))) await forward(o, secret, event);
      cursor = event.id;
    }
    if (page.data.length > 0) await saveSession(o.statePath, key, { signing_secret: secret, last_event_id: cursor });
  }
}

/** One signed POST of `event` to the local URL, and its line: time, type, id, the answer's status and time. */
async function forward(o: ListenOptions, secret: string, event: PublicEvent): Promise<void> {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  let outcome: string;
  try {
    const res = await fetch(o.forwardTo, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'sika-listen',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader([secret], event.id, timestamp, body),
      },
      body,
      // A receiver's redirect is its answer, shown as such: following it would post the event elsewhere.
      redirect: 'manual',
      signal: AbortSignal.any([o.signal, AbortSignal.timeout(15_000)]),
    });
    await res.arrayBuffer();
    outcome = isRedirect(res.status) ? `${res.status} (redirect to ${res.headers.get('location') ?? '?'} not followed)` : String(res.status);
  } catch (err) {
    outcome = `failed: ${reason(err)}`;
  }
  const ms = Math.round(performance.now() - started);
  o.out(`${new Date().toISOString()}  ${event.type}  ${event.id}  -> ${outcome} (${ms} ms)`);
}
