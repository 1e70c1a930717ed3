// AggregateSandbox: the emulators assembled — every provider's emulator (allSandboxes), the generic emulator of a
// definition, and the sandbox server `aggregate sandbox` runs (AggregateHTTPServer with the emulators, fault injection and cassette
// replay as its handler).
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateDefinitions, AggregateSandboxKit, AggregateHTTPServer, <Name>Sandbox, Foundation, Glibc, Darwin
