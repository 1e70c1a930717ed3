// AggregateSockets: the POSIX socket calls this package's servers and clients share (listen, accept, timed sends,
// polls that a wake-up pipe interrupts), each retrying EINTR. The sandbox's HTTP server is built on it. It is
// POSIX code (Linux and Darwin), not part of what an iOS app embeds, so it is `package`, not `public`.
// May import: AggregateCore, Foundation, Glibc, Darwin
