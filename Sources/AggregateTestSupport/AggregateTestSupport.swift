// AggregateTestSupport: helpers for the tests — the fake transport, golden files, optional tools, fixture paths,
// and the catalog the binary builds.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateRendering, AggregateDefinitions, AggregateSandboxKit, AggregateSandbox, AggregateProviders, AggregateScaffold, AggregateSQL, AggregateImport, AggregateYAML, AggregateRedis, AggregateSockets, Foundation, Testing, Glibc, Darwin
