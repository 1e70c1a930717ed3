// AggregateDefinitions: the declarative engine — a provider definition (JSON) read, checked and run as a provider
// like any Swift one, and the catalog that finds definitions (compiled in, the config folder, --provider-file).
// Its emulator is elsewhere (AggregateSandbox's DefinitionSandbox), so an app that runs definitions links none. It
// uses AggregateHTTP for one thing: an OAuth2 definition declares its token grant as the fetch layer's
// `ClientCredentialsGrant`, which the runner fetches, caches and refreshes.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, Foundation
