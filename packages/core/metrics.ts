import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds buckets for request and append latencies: 1 ms to 10 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's Prometheus metrics (docs/operations.md lists them with the alerts worth setting).
 * One registry per process: what `GET /metrics` renders. Counters and histograms are recorded as
 * things happen; gauges of shared state (backlogs, lags) are read when scraped.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'sika_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'sika_http_request_duration_seconds',
    help: 'Time from request to answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly appendDuration = new Histogram({
    name: 'sika_eventstore_append_duration_seconds',
    help: 'Time an event-store append takes (inline projections included), by outcome',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly appendConflicts = new Counter({
    name: 'sika_eventstore_append_conflicts_total',
    help: 'Appends refused because another writer changed the stream first (decided again or answered 409)',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'sika_' });
  }

  /** A gauge whose values are read when scraped; `collect` sets one value per label set. */
  gaugeOnScrape<L extends string>(name: string, help: string, labelNames: readonly L[], collect: (set: (labels: Record<L, string>, value: number) => void) => Promise<void>): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        await collect((labels, value) => this.set(labels, value));
      },
    });
  }

  /** Records one answered HTTP request. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
