import type { Metrics } from '#packages/core/metrics.js';
import { VersionConflictError, type AppendResult, type EventStore, type ExpectedVersion, type NewEvent, type StreamAppend } from './port.js';

/** An event store whose appends are timed and whose version conflicts are counted. */
export class MeasuredEventStore implements EventStore {
  readonly appendAtomically?: (appends: StreamAppend[]) => Promise<AppendResult[]>;

  constructor(
    private readonly inner: EventStore,
    private readonly metrics: Metrics,
  ) {
    const atomic = inner.appendAtomically?.bind(inner);
    // Only a store that can append atomically says so (callers check for the method).
    if (atomic) this.appendAtomically = (appends) => this.measure(() => atomic(appends));
  }

  append(streamId: string, events: NewEvent[], options: { expectedVersion: ExpectedVersion }): Promise<AppendResult> {
    return this.measure(() => this.inner.append(streamId, events, options));
  }

  private async measure<T>(append: () => Promise<T>): Promise<T> {
    const end = this.metrics.appendDuration.startTimer();
    try {
      const result = await append();
      end({ outcome: 'appended' });
      return result;
    } catch (err) {
      const conflict = err instanceof VersionConflictError;
      if (conflict) this.metrics.appendConflicts.inc();
      end({ outcome: conflict ? 'conflict' : 'error' });
      throw err;
    }
  }

  readStream: EventStore['readStream'] = (streamId, options) => this.inner.readStream(streamId, options);
  streamVersion: EventStore['streamVersion'] = (streamId) => this.inner.streamVersion(streamId);
  readAll: EventStore['readAll'] = (after, limit, options) => this.inner.readAll(after, limit, options);
  headPosition: EventStore['headPosition'] = () => this.inner.headPosition();
  subscribe: EventStore['subscribe'] = (options) => this.inner.subscribe(options);
  close: EventStore['close'] = () => this.inner.close();
}
