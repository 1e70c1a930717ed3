import AggregateCore
import AggregateHTTP
import Foundation
import Testing

/// Issue 27: what the limiter learns from hostile headers is bounded, and a damaged or absurd state is reset once.
@Suite struct RateLimitStateTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test func theReportIgnoresNonFiniteValuesAndBoundsTheRest() {
        let limit = now.addingTimeInterval(RateLimitHeaders.longestWait)
        let hostile = RateLimitReport(HTTPResponse(status: 429, headers: ["Retry-After": "1e308", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "inf"]), now: now)
        #expect(hostile.retryAfter == limit)
        #expect(hostile.reset == nil)
        #expect(hostile.remaining == 0)
        let huge = RateLimitReport(HTTPResponse(status: 429, headers: ["x-rate-limit-remaining": "0", "x-rate-limit-reset": "9223372036854775807"]), now: now)
        #expect(huge.reset == limit)
        let ordinary = RateLimitReport(HTTPResponse(status: 200, headers: ["X-RateLimit-Remaining": "7", "X-RateLimit-Reset": "30", "Retry-After": "nan"]), now: now)
        #expect(ordinary == RateLimitReport(HTTPResponse(status: 200, headers: ["X-RateLimit-Remaining": "7", "X-RateLimit-Reset": "30"]), now: now))
        #expect(ordinary.reset == now.addingTimeInterval(30) && ordinary.retryAfter == nil)
    }

    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-ratelimit-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: [#"{"version":1,"spent":[],"blockedUntil":1e+308}"#, #"{"version":1,"spent":[],"serverRemaining":0,"serverReset":1e300}"#, "not json", #"{"version":1,"spent":["x"]}"#])
    func anAbsurdOrDamagedStateIsResetOnceWithAReason(_ stored: String) throws {
        let folder = try folder()
        try Data(stored.utf8).write(to: folder.appendingPathComponent("tmdb_api_h.json"))
        let store = RateLimitStore(directory: folder)
        var reasons: [String] = []
        let state = store.update("tmdb api h", now: now, reset: { reasons.append($0) }) { $0 }
        #expect(state == RateBucketState())
        #expect(reasons.count == 1 && reasons[0].hasSuffix("; it was reset"), "\(reasons)")
        _ = store.update("tmdb api h", now: now, reset: { reasons.append($0) }) { $0 }
        #expect(reasons.count == 1, "the reset state is sane")
    }

    @Test func entriesAndClearGoByProvider() throws {
        let folder = try folder()
        let store = RateLimitStore(directory: folder)
        store.update("tmdb api h:1", now: now) { $0.blockedUntil = now.timeIntervalSince1970 + 60 }
        store.update("github search h:2", now: now) { $0.spent = [now.timeIntervalSince1970] }
        #expect(store.entries(now: now).map(\.key) == ["github search h:2", "tmdb api h:1"])
        #expect(store.entries(provider: "tmdb", now: now).first?.state?.blockedUntil == now.timeIntervalSince1970 + 60)
        #expect(try store.clear(provider: "tmdb") == 1)
        #expect(store.entries(now: now).map(\.key) == ["github search h:2"])
        #expect(try store.clear() == 1)
        #expect(store.entries(now: now).isEmpty)
    }
}
