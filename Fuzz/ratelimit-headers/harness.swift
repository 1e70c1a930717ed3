import Foundation

/// Rate-limit headers and the reset wording (issue 27): the first 8 bytes are a clock reading (a `Double`, any bit
/// pattern), the rest `Name: value` header lines. Reading them through ``RateLimitReport``, ``RetryAfter`` and
/// ``RateLimitHeaders`` never traps and never yields a wait or reset past ``RateLimitHeaders/longestWait``; the
/// limiter's state learned from them stays plausible; and ``RateLimitReset/describe(_:now:timeZone:)`` never traps,
/// never prints a blank clock and never tells a wait over two days.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRateLimitHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard bytes.count >= 8 else { return 0 }
    var bits: UInt64 = 0
    for byte in bytes.prefix(8) { bits = bits << 8 | UInt64(byte) }
    let reading = Double(bitPattern: bits)
    // Half the inputs use a clock near today, so that the headers' own values decide; the rest any reading at all.
    let clock = bits & 1 == 0 ? 1_764_000_000 + reading.truncatingRemainder(dividingBy: 1e9) : reading
    let now = Date(timeIntervalSince1970: clock.isFinite ? clock : 1_764_000_000)
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes.dropFirst(8)), as: UTF8.self)
    var headers = HTTPHeaders()
    var values: [String] = []
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { continue }
        headers.add(parts[0], parts[1])
        values.append(parts[1])
    }
    let response = HTTPResponse(status: 429, headers: headers, body: Data())
    let limit = now.addingTimeInterval(RateLimitHeaders.longestWait)

    func check(_ date: Date?, _ what: String) {
        guard let date else { return }
        guard date.timeIntervalSince1970.isFinite, date <= limit else { fatalError("\(what) \(date.timeIntervalSince1970) past the bound at \(clock)") }
    }
    let report = RateLimitReport(response, now: now)
    check(report.reset, "reset")
    check(report.retryAfter, "Retry-After")
    if let remaining = report.remaining, remaining < 0 { fatalError("negative remaining \(remaining)") }
    if let wait = RetryAfter.delay(response, now: now), !(0...RateLimitHeaders.longestWait).contains(wait) { fatalError("wait \(wait)") }
    for value in values {
        for epoch in [true, false, nil] as [Bool?] { check(RateLimitHeaders.reset(value, now: now, epoch: epoch), "reset(\(value))") }
    }

    // What the limiter would learn and then wait for.
    var state = RateBucketState()
    state.blockedUntil = report.retryAfter?.timeIntervalSince1970
    state.serverRemaining = report.remaining
    state.serverReset = report.reset?.timeIntervalSince1970
    if now.timeIntervalSince1970 >= 0, let reason = state.implausibility(now: now.timeIntervalSince1970) { fatalError("learned an implausible state: \(reason)") }
    let budget = RateBudget("api", requests: 40, per: 1)
    let ready = state.readyTime(requests: budget.requests, window: budget.window + RateLimitMiddleware.margin(budget.window), now: now.timeIntervalSince1970)
    check(Date(timeIntervalSince1970: ready), "ready time")

    // The wording, for what was learned and for a raw reading against a raw clock.
    let other = Date(timeIntervalSince1970: reading)
    for (reset, at) in [(Date(timeIntervalSince1970: ready), now), (report.reset ?? now, now), (other, now), (now, other), (other, other)] {
        for zone in [TimeZone(identifier: "UTC")!, TimeZone(identifier: "Pacific/Kiritimati")!] {
            let words = RateLimitReset.describe(reset, now: at, timeZone: zone)
            if words.contains("at  local") || words.isEmpty { fatalError("blank clock: \(words)") }
            if let range = words.range(of: "in about "), let hours = Int(words[range.upperBound...].prefix { $0.isNumber }), hours > 48 {
                fatalError("a wait over two days: \(words)")
            }
        }
    }
    return 0
}
