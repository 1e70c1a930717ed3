// AggregateProviders: the umbrella of provider clients — every Swift provider (allProviders) and the compiled-in
// definitions (builtInDefinitions). It links no emulator and no sample data.
// May import: AggregateCore, AggregateDefinitions, <Name>Provider, Foundation
