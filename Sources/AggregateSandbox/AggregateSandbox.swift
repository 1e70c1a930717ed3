// AggregateSandbox: the emulators assembled — every provider's emulator (allSandboxes), the generic emulator of a
// definition, and the HTTP/1.1 server `aggregate sandbox` runs (sockets, fault injection, cassette replay).
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateDefinitions, AggregateSandboxKit, AggregateSockets, <Name>Sandbox, Foundation, Glibc, Darwin
