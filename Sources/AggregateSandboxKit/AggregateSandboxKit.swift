// AggregateSandboxKit: what an emulator is written with — the emulator protocols (SandboxProviding,
// SandboxServing), requests, responses and persistent state, routes, paging, conditional answers and request
// counting, and the catalog, router and in-process transport that put emulators together. Every <Name>Sandbox
// target depends on it; no provider client and no app that only fetches does.
// May import: AggregateText, AggregateJSON, AggregateCore, Foundation
