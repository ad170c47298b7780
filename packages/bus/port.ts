/**
 * The bus port: an ordered, checkpointed feed of the event log for consumers that act outside the
 * event store (webhook dispatch, e-mail). Two adapters:
 * - embedded (BUS=postgres): a process's consumers form one ConsumerGroup (packages/bus/consumer.ts)
 *   tailing the event store itself; each batch and its checkpoints commit in one transaction, in
 *   global log order.
 * - Kafka (BUS=kafka): KafkaRelay (packages/bus/kafka/relay.ts) publishes the log to a topic
 *   keyed by stream id; KafkaBusConsumer (packages/bus/kafka/consumer.ts) reads it in a consumer
 *   group. Order holds per stream (per partition), delivery is at-least-once.
 * Both take the same ConsumerSpec. Handlers must be idempotent on event id: a batch can come again
 * after a crash (Kafka: between the handler's commit and the offset commit).
 */
export interface BusConsumer {
  start(): Promise<void>;
  /** Resolves when everything on the bus before the call has been handled (tests, drain, readiness). */
  caughtUp(): Promise<void>;
  /** Stops taking batches, lets the one in flight finish and commit, and disconnects. */
  stop(): Promise<void>;
}
