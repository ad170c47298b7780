import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { anyCidrContains, parseCidrList, parseIp } from '../packages/core/cidr.js';
import { generateSigningSecret } from '../packages/core/secrets.js';
import { matchesTypeFilter } from '../packages/domain/webhook-endpoint/event-types.js';
import { signatureHeader } from '../packages/webhooks/signing.js';

/**
 * `sika listen`: follows a merchant's events through the events API (long polling on
 * GET /api/v1/events) and POSTs each to a local URL, signed as a webhook (Standard Webhooks) with a
 * secret of this session, so the receiver's production verification code runs unchanged. It needs
 * no tunnel: it only makes outgoing requests. Where it stopped is kept in a state file, per service
 * and key, and it resumes there (within the events' 30 days). docs/webhooks.md, "sika listen".
 */
export interface ListenOptions {
  apiBase: string;
  apiKey: string;
  forwardTo: string;
  /** Type filters (`payout.*`, `payment_intent.succeeded`); none: every event. */
  events: string[];
  /** Where the position is kept between sessions. */
  statePath: string;
  /** Lines for the person watching: one per delivery. */
  out(line: string): void;
  /** Notices and errors. */
  err(line: string): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Seconds each poll waits for a new event (the events API allows 30). */
  waitSeconds?: number;
  /** The signing secret (a new one each session unless given). */
  secret?: string;
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

async function readState(file: string): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/**
 * Writes the position through a temporary file renamed over the state file. The directory it makes
 * is the user's alone (0700); the temporary file has an unguessable name and is created, never
 * opened if it exists ('wx'), so nothing planted beside a state file in a shared directory (a
 * symlink to another file) is written through.
 */
export async function saveState(file: string, key: string, lastEventId: string): Promise<void> {
  const state = await readState(file);
  state[key] = lastEventId;
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

export async function listen(o: ListenOptions): Promise<void> {
  const secret = o.secret ?? generateSigningSecret();
  const base = o.apiBase.replace(/\/+$/, '');
  const key = stateKey(base, o.apiKey);
  const wait = o.waitSeconds ?? 25;

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

  // The filters are checked by the API once, so a mistyped one stops here rather than matching nothing.
  if (o.events.length > 0) await get(new URLSearchParams({ type: o.events.join(','), limit: '1' }));

  const newest = async () => (await get(new URLSearchParams({ limit: '1' }))).data[0]?.id ?? null;
  let cursor: string | null = (await readState(o.statePath))[key] ?? null;
  if (cursor === null) {
    cursor = await newest();
    o.err('Listening for new events.');
  } else {
    o.err(`Resuming after ${cursor}.`);
  }
  o.err(`Forwarding to ${o.forwardTo}${o.events.length > 0 ? ` (${o.events.join(', ')})` : ''}. Ctrl-C stops.`);
  o.out(`Signing secret of this session: ${secret}`);

  let backoff = 1_000;
  while (!o.signal.aborted) {
    let page: EventList;
    try {
      const query = new URLSearchParams({ limit: String(PAGE), wait: String(wait) });
      if (cursor !== null) query.set('ending_before', cursor);
      page = await get(query);
      backoff = 1_000;
    } catch (err) {
      if (o.signal.aborted) break;
      if (err instanceof ApiAnswer && err.param === 'ending_before') {
        // The saved event is gone (older than 30 days): go on from the newest.
        o.err(`${cursor} is no longer in the events API (30 days); listening for new events.`);
        cursor = await newest();
        continue;
      }
      if (err instanceof ApiAnswer && (err.status === 401 || err.status === 403 || isRedirect(err.status))) throw err;
      o.err(`${reason(err)}; trying again in ${backoff / 1000} s.`);
      await delay(backoff, undefined, { signal: o.signal }).catch(() => undefined);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      continue;
    }
    // Newest first: the ones right after the cursor, so handled from the last.
    for (const event of [...page.data].reverse()) {
      if (o.signal.aborted) break;
      // Filtered here, with the events API's own rule, so the position stays one of the unfiltered list.
      if (o.events.length === 0 || o.events.some((f) => matchesTypeFilter(f, event.type))) await forward(o, secret, event);
      cursor = event.id;
    }
    if (page.data.length > 0 && cursor !== null) await saveState(o.statePath, key, cursor);
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
