package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `aggregate serve` listens, whom it answers and how much it lets each client ask.
package struct ServeConfiguration: Sendable {
    /// The address to bind; loopback unless asked (anything else needs a ``token``).
    package var host = "127.0.0.1"
    /// The port to bind; 0 picks any free port (what tests use).
    package var port = 8080
    /// The bearer tokens a request may carry, one per client (`--token-file`: one a line); empty for none, which
    /// only a loopback address allows.
    package var tokens: [String] = []
    /// Requests one client may make per window (`--client-budget 30/min`), or `nil` for no limit.
    package var clientBudget: (requests: Int, window: TimeInterval)?
    /// The most time one request may take to be answered before it gets 504.
    package var requestTimeout: TimeInterval = 60
    /// The largest request body accepted.
    package var maximumBodyBytes = 1 << 20
    /// The most connections served at once.
    package var maximumConnections = 256
    /// Receives one JSON line per request (the access log); the default is standard error.
    package var log: @Sendable (String) -> Void = { line in
        let bytes = Array((line + "\n").utf8)
        // One write(2), so lines from concurrent requests never interleave (and a closed stderr never traps).
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
    /// The clock of the access log.
    package var now: @Sendable () -> Date = { Date() }

    package init() {}

    /// Whether `host` only reaches this machine.
    package static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// `30/min`, `5/2s`, `1000/hour`: a budget for `--client-budget`, or `nil` when `text` is none.
    package static func parseBudget(_ text: String) -> (requests: Int, window: TimeInterval)? {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let requests = Int(parts[0]), requests > 0 else { return nil }
        let words: [String: TimeInterval] = ["s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "m": 60, "h": 3600, "hour": 3600]
        let window = parts[1].lowercased()
        if let seconds = words[window] { return (requests, seconds) }
        let digits = window.prefix { $0.isNumber || $0 == "." }
        guard let amount = Double(digits), amount > 0, amount <= 86_400, let unit = words[String(window.dropFirst(digits.count))] else { return nil }
        return (requests, amount * unit)
    }
}
