// AggregateScaffold: `aggregate new-provider` and the generated-source checks — the templates of a new provider and
// the text of the generated lists and embeddings.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateDefinitions, Foundation
