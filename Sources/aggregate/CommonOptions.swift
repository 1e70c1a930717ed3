import AggregateCore
import Foundation

/// Options every provider command accepts.
struct CommonOptions: Sendable, Equatable {
    var limit = 20
    var limitIsExplicit = false
    var format: OutputFormat = .text
    var offline = false
    var baseURL: String?
    var timeout: TimeInterval = 15
    var verbose = false
    var quiet = false
    var raw = false
    var help = false

    static let specs: [OptionSpec] = [
        OptionSpec("limit", valueName: "N", help: "The most items to return (default: 20)."),
        OptionSpec("format", valueName: "FORMAT", help: "Output format: text, json, ndjson, csv or markdown (default: text)."),
        OptionSpec("offline", arity: .flag, help: "Answer from the bundled sandbox data: no network, no credentials."),
        OptionSpec("base-url", valueName: "URL", help: "Send requests to this server instead of the API (https, or http for loopback)."),
        OptionSpec("timeout", valueName: "SECONDS", help: "The most time one request may take (default: 15)."),
        OptionSpec("verbose", arity: .flag, help: "Trace requests, responses and retries on stderr (secrets redacted)."),
        OptionSpec("quiet", arity: .flag, help: "Print no notes or progress on stderr (errors are still printed)."),
        OptionSpec("raw", arity: .flag, help: "Print the raw response body instead (several pages as a JSON array)."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    /// Reads the common options out of parsed arguments.
    init(_ parsed: ParsedArguments) throws(AggregateError) {
        help = parsed.has("help")
        offline = parsed.has("offline")
        verbose = parsed.has("verbose")
        quiet = parsed.has("quiet")
        raw = parsed.has("raw")
        baseURL = parsed.value("base-url")
        if let text = parsed.value("limit") {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw AggregateError(.usage, "--limit must be a whole number from 1 to 10000, not '\(text)'")
            }
            limit = value
            limitIsExplicit = true
        }
        if let text = parsed.value("format") {
            guard let value = OutputFormat(rawValue: text.lowercased()) else {
                throw AggregateError(.usage, "--format must be one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            format = value
        }
        if let text = parsed.value("timeout") {
            guard let value = DecimalText.number(text, in: 0.01...3600) else {
                throw AggregateError(.usage, "--timeout must be a decimal number of seconds from 0.01 to 3600, not '\(text)'")
            }
            timeout = value
        }
        if offline, baseURL != nil {
            throw AggregateError(.usage, "--offline and --base-url cannot be used together")
        }
    }

    init() {}
}
