package import AggregateHTTP
import AggregateHTTPServer
import Foundation

/// The counters `/metrics` shows in the Prometheus text format (version 0.0.4). Labels are route templates, status
/// codes and provider names only, never a query or a credential.
package final class ServeMetrics: Sendable {
    /// The latency histogram's upper bounds, in seconds.
    package static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private struct Counts {
        var requests: [RequestKey: Int] = [:]
        var upstream: [String: Int] = [:]
        var cache: [String: Int] = ["hit": 0, "miss": 0, "revalidated": 0]
        var rateLimitWaits: [String: Int] = [:]
        var rateLimitRefusals: [String: Int] = [:]
        var bucketCounts = [Int](repeating: 0, count: ServeMetrics.buckets.count)
        var latencyCount = 0
        var latencySum = 0.0
    }

    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }

    private let counts = Guarded(Counts())

    package init() {}

    /// Counts one answered request under its route template (e.g. `/v1/{provider}/{operation}`).
    package func recordRequest(route: String, status: Int, seconds: Double) {
        counts.withLock { counts in
            counts.requests[RequestKey(route: route, status: status), default: 0] += 1
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { counts.bucketCounts[index] += 1 }
            counts.latencyCount += 1
            counts.latencySum += seconds
        }
    }

    /// Counts what the fetch layer did: upstream requests, the cache's answers, rate-limit waits.
    package func record(_ event: FetchEvent) {
        counts.withLock { counts in
            switch event.kind {
            case .request:
                counts.upstream[event.provider, default: 0] += 1
            case .waitingForRateLimit:
                counts.rateLimitWaits[event.provider, default: 0] += 1
            case .cache(let message):
                // The cache middleware's own words (HTTPCacheMiddleware): a fresh answer, a miss, a 304.
                if message.hasPrefix("fresh:") {
                    counts.cache["hit", default: 0] += 1
                } else if message.hasPrefix("miss:") || message.hasPrefix("changed on the server") {
                    counts.cache["miss", default: 0] += 1
                } else if message.hasPrefix("not modified (304)") {
                    counts.cache["revalidated", default: 0] += 1
                }
            default:
                break
            }
        }
    }

    /// Counts a run that ended in the API's rate limit (`rateLimited`).
    package func recordRateLimitRefusal(provider: String) {
        counts.withLock { $0.rateLimitRefusals[provider, default: 0] += 1 }
    }

    /// How many upstream requests `provider` has sent (for tests and the health check).
    package func upstreamRequests(provider: String) -> Int { counts.withLock { $0.upstream[provider] ?? 0 } }

    /// The exposition text.
    package func text() -> String {
        let counts = counts.withLock { $0 }
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
        }
        family("aggregate_serve_requests_total", "counter", "Requests answered, by route template and status.")
        for (key, value) in counts.requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            lines.append("aggregate_serve_requests_total{route=\"\(Self.label(key.route))\",status=\"\(key.status)\"} \(value)")
        }
        /// A counter family with one label, its series in the label's order.
        func counter(_ name: String, _ help: String, label: String, _ values: [String: Int]) {
            family(name, "counter", help)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                lines.append("\(name){\(label)=\"\(Self.label(key))\"} \(value)")
            }
        }
        counter("aggregate_serve_upstream_requests_total", "Requests sent to the providers' APIs, by provider.", label: "provider", counts.upstream)
        counter(
            "aggregate_serve_cache_total", "What the HTTP cache did with upstream requests: hit, miss, revalidated.", label: "result", counts.cache)
        counter(
            "aggregate_serve_rate_limit_waits_total", "Upstream requests held back by the rate limiter, by provider.", label: "provider",
            counts.rateLimitWaits)
        counter(
            "aggregate_serve_rate_limit_refusals_total", "Runs that ended in the API's rate limit, by provider.", label: "provider",
            counts.rateLimitRefusals)
        family("aggregate_serve_request_duration_seconds", "histogram", "Time from a request read to its response ready.")
        for (index, bound) in Self.buckets.enumerated() {
            lines.append("aggregate_serve_request_duration_seconds_bucket{le=\"\(Self.number(bound))\"} \(counts.bucketCounts[index])")
        }
        lines.append("aggregate_serve_request_duration_seconds_bucket{le=\"+Inf\"} \(counts.latencyCount)")
        lines.append("aggregate_serve_request_duration_seconds_sum \(Self.number(counts.latencySum))")
        lines.append("aggregate_serve_request_duration_seconds_count \(counts.latencyCount)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label value escaped as the format asks (backslash, quote, newline).
    private static func label(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
