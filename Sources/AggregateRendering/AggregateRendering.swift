// AggregateRendering: results for people and programs — the output formats (JSON, NDJSON, CSV, Markdown), the
// generic and tabular text views, ANSI styling, and compare's side-by-side text and HTML report.
// May import: AggregateText, AggregateJSON, AggregateCore, Foundation
