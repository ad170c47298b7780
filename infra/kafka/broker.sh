#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft, broker and controller in one JVM) on free loopback
# ports, from the jars infra/kafka/pom.xml brings from Maven Central. No Docker, no other download.
#
#   infra/kafka/broker.sh libs             fetch the jars into .cache/kafka/libs (once; mvn)
#   infra/kafka/broker.sh start DIR        format DIR, start the broker, wait until it answers;
#                                          prints its address (127.0.0.1:PORT), also in DIR/address
#   infra/kafka/broker.sh stop DIR         SIGTERM, wait for a clean shutdown (30 s), then SIGKILL
#   infra/kafka/broker.sh run -- CMD...    start a broker in a temporary DIR, run CMD with
#                                          KAFKA_BROKERS set, stop the broker, exit with CMD's code
#
# Needs Java 17+ and Maven. The broker's own log is DIR/broker.log.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
libs="${KAFKA_LIBS:-$root/.cache/kafka/libs}"
stamp="$libs/.copied"

die() { echo "kafka broker: $*" >&2; exit 1; }

ensure_libs() {
  if [ -f "$stamp" ] && [ "$stamp" -nt "$here/pom.xml" ]; then return; fi
  command -v java >/dev/null || die "Java 17+ is required"
  command -v mvn >/dev/null || die "Maven is required (it brings the broker's jars from Maven Central)"
  rm -rf "$libs"
  mkdir -p "$libs"
  mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs" >&2
  touch "$stamp"
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}


start() {
  local dir="$1"
  ensure_libs
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  [ -f "$dir/broker.pid" ] && kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null && die "a broker already runs in $dir"
  local port controller
  port="$(free_port)"
  controller="$(free_port)"
  while [ "$controller" = "$port" ]; do controller="$(free_port)"; done
  # One node, one replica: every internal topic's replication factor is 1, with few partitions
  # so the broker starts in seconds; transactions (the relay's) need the transaction log's too.
  cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  cat > "$dir/log4j2.properties" <<PROPS
appender.file.type=File
appender.file.name=file
appender.file.fileName=$dir/broker.log
appender.file.layout.type=PatternLayout
appender.file.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=INFO
rootLogger.appenderRef.file.ref=file
logger.kafka.name=kafka
logger.kafka.level=INFO
logger.apache.name=org.apache.kafka
logger.apache.level=WARN
PROPS
  local cluster
  local -a jvm=(java -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true "-Dlog4j2.configurationFile=$dir/log4j2.properties" -cp "$libs/*")
  cluster="$("${jvm[@]}" kafka.tools.StorageTool random-uuid)"
  "${jvm[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$dir/server.properties" >/dev/null
  # Started directly, not through a function or subshell: the recorded PID is the JVM's own.
  "${jvm[@]}" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 &
  echo $! >"$dir/broker.pid"
  local pid deadline
  pid="$(cat "$dir/broker.pid")"
  deadline=$((SECONDS + 90))
  until grep -q "Kafka Server started" "$dir/broker.log" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { tail -30 "$dir/stdout.log" "$dir/broker.log" >&2 2>/dev/null; die "the broker exited while starting (log: $dir/broker.log)"; }
    [ "$SECONDS" -lt "$deadline" ] || { stop "$dir"; die "the broker did not answer within 90 s (log: $dir/broker.log)"; }
    sleep 0.2
  done
  echo "127.0.0.1:$port" >"$dir/address"
  echo "127.0.0.1:$port"
}

stop() {
  local dir="$1"
  [ -f "$dir/broker.pid" ] || return 0
  local pid
  pid="$(cat "$dir/broker.pid")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    local deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && { echo "kafka broker: no clean shutdown within 30 s; killed" >&2; kill -KILL "$pid"; }
  fi
  rm -f "$dir/broker.pid"
}

run() {
  local dir
  dir="$(mktemp -d "${TMPDIR:-/tmp}/sika-kafka-XXXXXX")"
  local address
  address="$(start "$dir")" || { rm -rf "$dir"; exit 1; }
  echo "kafka broker at $address (log: $dir/broker.log)" >&2
  local code=0
  KAFKA_BROKERS="$address" KAFKA_BROKER_LOG="$dir/broker.log" "$@" || code=$?
  stop "$dir"
  if [ "$code" = 0 ]; then rm -rf "$dir"; else echo "kafka broker: kept $dir for its log" >&2; fi
  exit "$code"
}

case "${1:-}" in
  libs) ensure_libs ;;
  start) [ $# -eq 2 ] || die "usage: broker.sh start DIR"; start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: broker.sh stop DIR"; stop "$2" ;;
  run) shift; [ "${1:-}" = "--" ] && shift; [ $# -gt 0 ] || die "usage: broker.sh run -- CMD..."; run "$@" ;;
  *) die "usage: broker.sh libs | start DIR | stop DIR | run -- CMD..." ;;
esac
