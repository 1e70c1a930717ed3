# Sourced by .ci/run before `swift test`: installs redis-server from Debian's packages when missing, starts a private
# one on a free loopback port (no persistence), and exports AGGREGATE_REDIS_URL and AGGREGATE_REQUIRE_REDIS=1, so the
# Redis tests (Tests/AggregateRedisTests) run and fail rather than skip. An EXIT trap stops it, whatever happens.
if ! command -v redis-server >/dev/null 2>&1; then
    echo "== installing redis-server (for the Redis store tests)"
    apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
fi
redis_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
redis_dir="$(mktemp -d)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$redis_dir" --daemonize no \
    --loglevel warning >"$redis_dir/log" 2>&1 &
redis_pid=$!
stop_redis() {
    kill "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
    rm -rf "$redis_dir"
}
trap stop_redis EXIT
for _ in $(seq 100); do
    if redis-cli -p "$redis_port" ping >/dev/null 2>&1; then break; fi
    sleep 0.1
done
redis-cli -p "$redis_port" ping >/dev/null || { echo "redis-server did not start:"; cat "$redis_dir/log"; exit 1; }
echo "== redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1:$redis_port"
export AGGREGATE_REDIS_URL="redis://127.0.0.1:$redis_port/0" AGGREGATE_REQUIRE_REDIS=1
