// AggregateHTTP: the client side of the wire — the Fetcher (paging, retries, redirects under one origin policy,
// deadlines, size caps), the middleware chain, and the middlewares that slot into it,
// each in its folder: Cache/ (the revalidating disk cache), RateLimit/ (the limiter and its shared store),
// Recording/ (cassettes: record and replay). Runner/ runs an invocation the way the command line does.
// It links no networking library: the transports live in AggregateURLSession (for apps) and AggregateCurl (the
// executable on Linux), so a program that sends nothing never loads libcurl and its TLS library.
// May import: AggregateText, AggregateJSON, AggregateCore, Foundation, Glibc, Darwin
