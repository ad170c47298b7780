import type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  AppendResult as EsdbAppendResult,
  AppendToStreamOptions,
  EventData,
  ReadAllOptions,
  ReadStreamOptions,
  ResolvedEvent,
  StreamingRead,
  SubscribeToAllOptions,
} from '@eventstore/db-client';

/** The part of EventStoreDBClient the store uses (an EventStoreDBClient is one; tests may pass an emulator). */
export interface EsdbClient {
  appendToStream(streamName: string, events: EventData[], options: AppendToStreamOptions): Promise<EsdbAppendResult>;
  readStream(streamName: string, options: ReadStreamOptions): StreamingRead<ResolvedEvent>;
  readAll(options: ReadAllOptions): StreamingRead<AllStreamResolvedEvent>;
  subscribeToAll(options: SubscribeToAllOptions): AllStreamSubscription;
  dispose(): Promise<void>;
}
