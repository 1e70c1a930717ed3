import AggregateCore
import AggregateText
public import Foundation

/// A failure the sandbox injects in place of (or around) a normal response, so clients can be tested against
/// the ways real APIs misbehave: error statuses, rate limits, slowness, cut-off bodies, broken JSON, HTML error
/// pages, huge bodies and dropped connections.
///
/// Write one as text with ``parse(_:)`` (the syntax is in `docs/sandbox-faults.md`), either per request in an
/// `X-Sandbox-Fault` header or server-wide through ``SandboxServerConfiguration/faults`` and
/// ``SandboxServer/addFault(_:)``:
///
/// ```swift
/// let rateLimit = try SandboxFault.parse("status=429; retry-after=1; times=1")
/// ```
public struct SandboxFault: Sendable, Equatable, CustomStringConvertible {
    /// What replaces the normal body. At most one per fault.
    public enum Body: Sendable, Equatable {
        /// A 200 (or `status=`) whose body is not valid JSON.
        case malformed
        /// An HTML error page served as `text/html`, with `status=` or 500.
        case html
        /// A 200 (or `status=`) JSON body of exactly this many bytes.
        case size(Int)
        /// No response at all: the connection is closed.
        case close
    }

    /// The status to answer with; alone, the body is the provider's error shape or a generic JSON error.
    public var status: Int?
    /// Seconds to send in a `Retry-After` header.
    public var retryAfter: Int?
    /// How long to wait before answering; without anything else, the normal response follows.
    public var delay: TimeInterval?
    /// What replaces the body.
    public var body: Body?
    /// Whether to declare the full `Content-Length`, send only half the body, and close the connection.
    public var truncate: Bool
    /// A redirect: answer with `status=` (default 302) and this `Location` (absolute, or a path on this server).
    public var redirect: String?
    /// For server-wide rules: how many matching requests it applies to before it is spent (`nil`: all).
    public var times: Int?
    /// For server-wide rules: only requests whose path, as received, starts with this.
    public var path: String?
    /// For server-wide rules: only requests with this method.
    public var method: String?

    /// Creates a fault; ``parse(_:)`` is the usual way.
    public init(
        status: Int? = nil, retryAfter: Int? = nil, delay: TimeInterval? = nil, body: Body? = nil,
        truncate: Bool = false, times: Int? = nil, path: String? = nil, method: String? = nil
    ) {
        self.status = status
        self.retryAfter = retryAfter
        self.delay = delay
        self.body = body
        self.truncate = truncate
        self.times = times
        self.path = path
        self.method = method?.uppercased()
    }

    /// Whether the fault is scoped to `method` and `path` (the path as the client sent it, without the query).
    public func applies(method: String, path: String) -> Bool {
        if let wanted = self.method, wanted.uppercased() != method.uppercased() { return false }
        if let prefix = self.path, !path.hasPrefix(prefix) { return false }
        return true
    }

    /// The fault in the syntax ``parse(_:)`` reads, items in a fixed order.
    public var description: String {
        var items: [String] = []
        if let status { items.append("status=\(status)") }
        if let retryAfter { items.append("retry-after=\(retryAfter)") }
        if let delay { items.append("delay=\(Self.describe(delay))") }
        switch body {
        case .malformed?: items.append("malformed")
        case .html?: items.append("html")
        case .size(let bytes)?: items.append("size=\(bytes)")
        case .close?: items.append("close")
        case nil: break
        }
        if truncate { items.append("truncate") }
        if let redirect { items.append("redirect=\(redirect)") }
        if let times { items.append("times=\(times)") }
        if let path { items.append("path=\(path)") }
        if let method { items.append("method=\(method)") }
        return items.joined(separator: "; ")
    }

    // MARK: - Parsing

    /// The items ``parse(_:)`` accepts, for error messages and help text.
    public static let syntaxSummary =
        "status=N, retry-after=N, delay=3s|500ms, truncate, malformed, html, size=40MiB, close, redirect=URL, times=N, path=/prefix, method=GET"

    /// The largest body `size=` may ask for; beyond this a typo would tie up the server for minutes.
    public static let maximumSize = 1 << 30

    /// Reads a fault such as `status=503; retry-after=2` or `delay=500ms; path=/2/groups; times=1`.
    /// - Throws: ``AggregateError`` of kind `usage` that names the bad item and lists the valid ones.
    public static func parse(_ spec: String) throws -> SandboxFault {
        var fault = SandboxFault()
        var seen: Set<String> = []
        let items = spec.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw usageError(spec, "it is empty") }

        for item in items {
            // Empty pieces are kept: '=' is a missing name, not a missing item (and never an empty array to index).
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let name = parts[0].lowercased()
            guard !name.isEmpty else { throw usageError(spec, "'\(item)' has no name before '='") }
            let value = parts.count > 1 ? parts[1] : nil
            guard seen.insert(name).inserted else { throw usageError(spec, "'\(name)' is given twice") }

            func required() throws -> String {
                guard let value, !value.isEmpty else { throw usageError(spec, "'\(name)' needs a value, e.g. \(name)=\(example(name))") }
                return value
            }
            func flag() throws {
                if value != nil { throw usageError(spec, "'\(name)' takes no value") }
            }
            func setBody(_ body: Body) throws {
                if let existing = fault.body {
                    throw usageError(spec, "'\(name)' cannot be combined with '\(Self.bodyName(existing))'")
                }
                fault.body = body
            }

            switch name {
            case "status":
                let text = try required()
                guard let code = Int(text), (200...599).contains(code) else {
                    throw usageError(spec, "status must be an HTTP status from 200 to 599, not '\(text)'")
                }
                fault.status = code
            case "retry-after":
                let text = try required()
                guard let seconds = Int(text), seconds >= 0 else {
                    throw usageError(spec, "retry-after must be whole seconds, not '\(text)'")
                }
                fault.retryAfter = seconds
            case "delay":
                fault.delay = try parseDuration(try required(), spec: spec)
            case "truncate":
                try flag()
                fault.truncate = true
            case "malformed":
                try flag()
                try setBody(.malformed)
            case "html":
                try flag()
                try setBody(.html)
            case "close":
                try flag()
                try setBody(.close)
            case "size":
                try setBody(.size(try parseSize(try required(), spec: spec)))
            case "redirect":
                let text = try required()
                guard !text.contains(where: { $0.isWhitespace || $0 == ";" }), text.hasPrefix("/") || text.lowercased().hasPrefix("http") else {
                    throw usageError(spec, "redirect must be a URL or a path starting with '/', not '\(text)'")
                }
                fault.redirect = text
            case "times":
                let text = try required()
                guard let count = Int(text), count >= 1 else {
                    throw usageError(spec, "times must be a whole number of at least 1, not '\(text)'")
                }
                fault.times = count
            case "path":
                let text = try required()
                guard text.hasPrefix("/") else { throw usageError(spec, "path must start with '/', not '\(text)'") }
                fault.path = text
            case "method":
                let text = try required()
                guard text.allSatisfy({ $0.isLetter }) else { throw usageError(spec, "method must be a word like GET, not '\(text)'") }
                fault.method = text.uppercased()
            default:
                throw usageError(spec, "unknown item '\(item)'")
            }
        }

        if fault.body == .close {
            if fault.status != nil || fault.retryAfter != nil || fault.truncate {
                throw usageError(spec, "'close' sends no response, so it cannot have status, retry-after or truncate")
            }
        }
        if fault.redirect != nil, fault.body != nil || fault.truncate {
            throw usageError(spec, "'redirect' sends no body, so it cannot be combined with a body or truncate")
        }
        if let status = fault.status, fault.redirect != nil, !(300...399).contains(status) {
            throw usageError(spec, "a redirect's status must be from 300 to 399, not \(status)")
        }
        guard fault.status != nil || fault.retryAfter != nil || fault.delay != nil || fault.body != nil || fault.truncate
            || fault.redirect != nil
        else {
            throw usageError(spec, "it only scopes (times, path, method) and injects nothing")
        }
        return fault
    }

    private static func usageError(_ spec: String, _ reason: String) -> AggregateError {
        AggregateError(
            .usage,
            "invalid sandbox fault '\(spec)': \(reason). Items, separated by ';': \(syntaxSummary). See docs/sandbox-faults.md.")
    }

    private static func example(_ name: String) -> String {
        switch name {
        case "status": return "503"
        case "retry-after": return "2"
        case "delay": return "500ms"
        case "size": return "40MiB"
        case "times": return "1"
        case "path": return "/2/groups"
        case "method": return "POST"
        case "redirect": return "http://localhost:8787/2/groups"
        default: return "..."
        }
    }

    private static func bodyName(_ body: Body) -> String {
        switch body {
        case .malformed: return "malformed"
        case .html: return "html"
        case .size: return "size"
        case .close: return "close"
        }
    }

    /// `3s`, `1.5s`, `500ms` or a bare number of seconds.
    static func parseDuration(_ text: String, spec: String) throws -> TimeInterval {
        let lowered = text.lowercased()
        let (number, scale): (Substring, Double) =
            lowered.hasSuffix("ms") ? (lowered.dropLast(2), 0.001)
            : lowered.hasSuffix("s") ? (lowered.dropLast(), 1) : (Substring(lowered), 1)
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0,
            value * scale <= 3600
        else {
            throw usageError(spec, "delay must look like 3s or 500ms (at most an hour), not '\(text)'")
        }
        return value * scale
    }

    /// `40MiB`, `512KiB`, `2MB`, `1000B` or a bare number of bytes.
    static func parseSize(_ text: String, spec: String) throws -> Int {
        let units: [(suffix: String, scale: Double)] = [
            ("gib", 1_073_741_824), ("mib", 1_048_576), ("kib", 1024), ("gb", 1e9), ("mb", 1e6), ("kb", 1e3), ("b", 1),
        ]
        let lowered = text.lowercased().trimmingCharacters(in: .whitespaces)
        let unit = units.first { lowered.hasSuffix($0.suffix) }
        let number = unit.map { String(lowered.dropLast($0.suffix.count)) } ?? lowered
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else {
            throw usageError(spec, "size must look like 40MiB, 512KiB or 1000, not '\(text)'")
        }
        let bytes = value * (unit?.scale ?? 1)
        guard bytes >= Double(GeneratedJSONBody.minimumSize), bytes <= Double(maximumSize) else {
            throw usageError(
                spec, "size must be from \(GeneratedJSONBody.minimumSize) bytes to \(ByteCount.describe(maximumSize)), not '\(text)'")
        }
        return Int(bytes)
    }

    /// The shortest text ``parseDuration(_:spec:)`` reads back as exactly `delay` (found by fuzzing: rounding to
    /// whole milliseconds changed `delay=.5ms` into `1ms`).
    private static func describe(_ delay: TimeInterval) -> String {
        if delay >= 1, delay == delay.rounded() { return "\(Int(delay))s" }
        let milliseconds = (delay * 1000).rounded()
        if Double(Int(milliseconds)) * 0.001 == delay { return "\(Int(milliseconds))ms" }
        return "\(delay)s"
    }
}
