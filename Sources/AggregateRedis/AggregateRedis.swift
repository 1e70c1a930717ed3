// AggregateRedis: the shared-state engine over Redis. A small RESP2 client of our own on AggregateSockets (connect
// with a timeout, AUTH and SELECT, per-command deadlines, reconnect, pipelining, EVALSHA with SCRIPT LOAD on
// NOSCRIPT, a bounded parser), and the Redis-backed stores of AggregateHTTP's protocols: the rate limiter's token
// buckets as Lua scripts and the HTTP cache with its LRU byte cap. POSIX code like AggregateSockets, so `package`.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateSockets, Foundation, Glibc, Darwin
