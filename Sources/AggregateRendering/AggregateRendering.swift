// AggregateRendering: results for people and programs — the output formats (JSON, NDJSON, CSV, Markdown), the
// generic and tabular text views, ANSI styling, compare's side-by-side text and HTML report, and the web page of
// `aggregate serve` (Web/: server-rendered HTML, pure functions of descriptors, query strings and results).
// May import: AggregateText, AggregateJSON, AggregateCore, Foundation
