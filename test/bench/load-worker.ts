/**
 * The HTTP load generator of the payout and payment intent sections, in a child process so it
 * shares neither the server's event loop nor its memory. Closed loop: each client sends its next request when the
 * previous answer is read, over its own keep-alive connection (node:http Agent, one socket per
 * client). Per-request bodies and the create → confirm chain are why this is not autocannon.
 *
 * Protocol: the first argument is a LoadWorkerData as JSON; the parent sends `run` (one slice) and
 * `totals` messages over IPC, and gets one answer per message, in order.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * A payout client POSTs `body` to /api/v1/payouts; an intent client creates then confirms; a `get`
 * client GETs `path` (`GET /healthz`: what a request costs the server when it does nothing).
 */
export type ScenarioSpec = { kind: 'payouts'; body: string; keys: string[] } | { kind: 'intents'; createBody: string; confirmBody: string; keys: string[] } | { kind: 'get'; path: string; keys: string[] };

export interface LoadWorkerData {
  baseUrl: string;
  scenarios: Record<string, ScenarioSpec>;
}

/**
 * `run`: one closed-loop slice (every client sends its next request when its answer is read);
 * `open`: requests sent at a fixed rate whatever the answers, the clients in turn, each request's
 * latency counted from the moment it was due (so a slow answer delays no later arrival and a
 * queue shows in the latencies instead of hiding in a lower rate).
 */
export type ToWorker = { type: 'run'; scenario: string; seconds: number } | { type: 'open'; scenario: string; seconds: number; perSecond: number } | { type: 'totals'; scenario: string } | { type: 'close' };

export interface SliceReport {
  type: 'slice';
  scenario: string;
  /** Latency of each operation that started inside the window and got an answer. */
  latenciesMs: Float64Array;
  /** From the start of the slice until its last operation finished. */
  seconds: number;
  non2xx: number;
  /** Connection errors and timeouts (no answer, so no latency). */
  errors: number;
}

export interface KeyTotals {
  key: string;
  /** Operations answered 2xx, warm-ups included. */
  ok: number;
  /** Payouts: Σ (amount + fee) of the 2xx answers. */
  amountPlusFee: number;
}

export interface TotalsReport {
  type: 'totals';
  scenario: string;
  perKey: KeyTotals[];
  /** `status` of the objects in 2xx answers, and `HTTP <status> <code>` of the others. */
  outcomes: Record<string, number>;
}

export type FromWorker = SliceReport | TotalsReport | { type: 'failed'; message: string };

const REQUEST_TIMEOUT_MS = 60_000;

interface Answer {
  status: number;
  body: string;
}

class RequestError extends Error {}

/** POSTs `body`, or GETs where it is null. */
function send(agent: http.Agent, url: URL, key: string, body: string | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: body === null ? 'GET' : 'POST',
      agent,
      headers: {
        authorization: `Bearer ${key}`,
        'x-environment': 'sandbox',
        ...(body === null ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
      },
      timeout: REQUEST_TIMEOUT_MS,
    });
    req.on('timeout', () => req.destroy(new RequestError(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', (err) => reject(err instanceof RequestError ? err : new RequestError(err.message)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => reject(new RequestError(err.message)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(body ?? undefined);
  });
}

const ok = (status: number) => status >= 200 && status < 300;

function parse(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** One operation of a client: its outcome (status, and the object's status when 2xx). */
type Outcome = { status: number; label: string; amountPlusFee: number };
type Client = () => Promise<Outcome>;

function labelOf(answer: Answer): string {
  const json = parse(answer.body);
  if (ok(answer.status)) return String(json.status ?? 'ok');
  return `HTTP ${answer.status} ${String(json.code ?? '')}`.trim();
}

function clientsOf(baseUrl: string, spec: ScenarioSpec): { clients: Client[]; agent: http.Agent } {
  // A socket per client; an open loop may have more requests in flight than clients (up to 4 each).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 * spec.keys.length, maxFreeSockets: spec.keys.length });
  if (spec.kind === 'payouts') {
    const url = new URL('/api/v1/payouts', baseUrl);
    const clients = spec.keys.map((key): Client => async () => {
      const answer = await send(agent, url, key, spec.body);
      const json = parse(answer.body);
      const amountPlusFee = ok(answer.status) ? Number(json.amount ?? NaN) + Number(json.fee ?? NaN) : 0;
      return { status: answer.status, label: labelOf(answer), amountPlusFee };
    });
    return { clients, agent };
  }
  if (spec.kind === 'get') {
    const url = new URL(spec.path, baseUrl);
    const clients = spec.keys.map((key): Client => async () => {
      const answer = await send(agent, url, key, null);
      return { status: answer.status, label: ok(answer.status) ? 'ok' : labelOf(answer), amountPlusFee: 0 };
    });
    return { clients, agent };
  }
  const createUrl = new URL('/api/v1/payment-intents', baseUrl);
  const clients = spec.keys.map((key): Client => async () => {
    const created = await send(agent, createUrl, key, spec.createBody);
    if (!ok(created.status)) return { status: created.status, label: `create ${labelOf(created)}`, amountPlusFee: 0 };
    const id = String(parse(created.body).id);
    const confirmed = await send(agent, new URL(`/api/v1/payment-intents/${encodeURIComponent(id)}/confirm`, baseUrl), key, spec.confirmBody);
    return { status: confirmed.status, label: ok(confirmed.status) ? labelOf(confirmed) : `confirm ${labelOf(confirmed)}`, amountPlusFee: 0 };
  });
  return { clients, agent };
}

interface ScenarioState {
  spec: ScenarioSpec;
  clients: Client[];
  agent: http.Agent;
  totals: Map<string, KeyTotals>;
  outcomes: Map<string, number>;
}

/** Counts one operation's outcome into the scenario's totals and the slice's counters. */
function outcomeCounter(state: ScenarioState) {
  const latencies: number[] = [];
  const counts = { non2xx: 0, errors: 0 };
  const run = async (client: Client, key: string, since: number): Promise<void> => {
    const totals = state.totals.get(key)!;
    try {
      const outcome = await client();
      latencies.push(performance.now() - since);
      state.outcomes.set(outcome.label, (state.outcomes.get(outcome.label) ?? 0) + 1);
      if (ok(outcome.status)) {
        totals.ok++;
        totals.amountPlusFee += outcome.amountPlusFee;
      } else {
        counts.non2xx++;
      }
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      counts.errors++;
      state.outcomes.set(`error ${err.message}`, (state.outcomes.get(`error ${err.message}`) ?? 0) + 1);
    }
  };
  const report = (name: string, from: number): SliceReport => ({
    type: 'slice',
    scenario: name,
    latenciesMs: Float64Array.from(latencies),
    seconds: (performance.now() - from) / 1000,
    non2xx: counts.non2xx,
    errors: counts.errors,
  });
  return { run, report };
}

async function runSlice(state: ScenarioState, name: string, seconds: number): Promise<SliceReport> {
  const counter = outcomeCounter(state);
  const from = performance.now();
  const stopAt = from + seconds * 1000;
  const loop = async (client: Client, key: string): Promise<void> => {
    for (;;) {
      const started = performance.now();
      if (started >= stopAt) return;
      await counter.run(client, key, started);
    }
  };
  await Promise.all(state.clients.map((client, i) => loop(client, state.spec.keys[i]!)));
  return counter.report(name, from);
}

/** Sends `perSecond` requests a second for `seconds`, the clients in turn, and waits for every answer. */
async function runOpenLoop(state: ScenarioState, name: string, seconds: number, perSecond: number): Promise<SliceReport> {
  const counter = outcomeCounter(state);
  const from = performance.now();
  const due = Math.floor(seconds * perSecond);
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < due; i++) {
    const at = from + (i * 1000) / perSecond;
    const wait = at - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const which = i % state.clients.length;
    inFlight.push(counter.run(state.clients[which]!, state.spec.keys[which]!, at));
  }
  await Promise.all(inFlight);
  return counter.report(name, from);
}

function main(): void {
  const send = process.send?.bind(process);
  if (!send || process.argv[2] === undefined) throw new Error('load-worker.js runs as a child process with an IPC channel (load.ts)');
  const data = JSON.parse(process.argv[2]) as LoadWorkerData;
  const states = new Map<string, ScenarioState>();
  for (const [name, spec] of Object.entries(data.scenarios)) {
    const { clients, agent } = clientsOf(data.baseUrl, spec);
    states.set(name, { spec, clients, agent, totals: new Map(spec.keys.map((key) => [key, { key, ok: 0, amountPlusFee: 0 }])), outcomes: new Map() });
  }
  const stateOf = (name: string): ScenarioState => {
    const state = states.get(name);
    if (!state) throw new Error(`unknown scenario ${name}`);
    return state;
  };
  // Messages are handled one after another: the parent waits for each answer anyway.
  let queue: Promise<void> = Promise.resolve();
  process.on('message', (message: ToWorker) => {
    queue = queue.then(async () => {
      try {
        switch (message.type) {
          case 'run': {
            const report = await runSlice(stateOf(message.scenario), message.scenario, message.seconds);
            send(report);
            break;
          }
          case 'open': {
            send(await runOpenLoop(stateOf(message.scenario), message.scenario, message.seconds, message.perSecond));
            break;
          }
          case 'totals': {
            const state = stateOf(message.scenario);
            const report: TotalsReport = { type: 'totals', scenario: message.scenario, perKey: [...state.totals.values()], outcomes: Object.fromEntries(state.outcomes) };
            send(report);
            break;
          }
          case 'close':
            for (const state of states.values()) state.agent.destroy();
            process.disconnect();
            break;
        }
      } catch (err) {
        send({ type: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies FromWorker);
      }
    });
  });
}

main();
