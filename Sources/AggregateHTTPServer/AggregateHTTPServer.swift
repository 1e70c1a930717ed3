// AggregateHTTPServer: the package's own HTTP/1.1 server — accept loop, connection slots and eviction, head, idle and
// keep-alive timeouts, slow-connection defences, the request reader and response writer, body caps, start, stop and
// graceful drain — behind a small handler protocol (HTTPServerHandler). The sandbox and `aggregate serve` are its
// handlers. It is POSIX code on AggregateSockets, so it is `package`, not `public`.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateSockets, Foundation, Glibc, Darwin
