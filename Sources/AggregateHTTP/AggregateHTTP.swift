// AggregateHTTP: the client side of the wire — the Fetcher (paging, retries, redirects under one origin policy,
// deadlines, size caps), the URLSession transport, the middleware chain, and the middlewares that slot into it,
// each in its folder: Cache/ (the revalidating disk cache), RateLimit/ (the limiter and its shared store),
// Recording/ (cassettes: record and replay). Runner/ runs an invocation the way the command line does.
// May import: AggregateText, AggregateJSON, AggregateCore, Foundation, FoundationNetworking, Glibc, Darwin
