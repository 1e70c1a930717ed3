// AggregateCore: what every other module shares, and nothing more — the unified model (Item, ItemField,
// ProviderResult), the provider protocol and its SDK (descriptors, typed parameters, credentials, local commands),
// the registry, the HTTP vocabulary providers speak (HTTPRequestSpec, HTTPResponse, HTTPTransport), errors and
// exit kinds, and the one redactor. No transport, middleware, definition engine, renderer or emulator lives here.
// May import: AggregateText, AggregateJSON, Foundation
