import AggregateCore
import AggregateHTTP
import Foundation
import Testing

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(jitter: { 1.0 })

    @Test func backsOffExponentiallyWithACap() {
        #expect(policy.decide(attempt: 1, retryable: true, suggested: nil, waited: 0) == .retry(after: 0.5))
        #expect(policy.decide(attempt: 2, retryable: true, suggested: nil, waited: 0.5) == .retry(after: 1))
        #expect(policy.decide(attempt: 3, retryable: true, suggested: nil, waited: 1.5) == .retry(after: 2))
        #expect(policy.decide(attempt: 4, retryable: true, suggested: nil, waited: 3.5) == .giveUp(budgetExceeded: false))
        let capped = RetryPolicy(maxRetries: 10, baseDelay: 1, maxDelay: 8, jitter: { 1.0 })
        #expect(capped.decide(attempt: 6, retryable: true, suggested: nil, waited: 0) == .retry(after: 8))
    }

    @Test func honoursRetryAfterWithinTheBudget() {
        #expect(policy.decide(attempt: 1, retryable: true, suggested: 2, waited: 0) == .retry(after: 2))
        #expect(policy.decide(attempt: 1, retryable: true, suggested: 31, waited: 0) == .giveUp(budgetExceeded: true))
        #expect(policy.decide(attempt: 2, retryable: true, suggested: 10, waited: 25) == .giveUp(budgetExceeded: true))
    }

    @Test func neverRetriesWhatIsNotRetryable() {
        #expect(policy.decide(attempt: 1, retryable: false, suggested: 1, waited: 0) == .giveUp(budgetExceeded: false))
    }

    @Test func readsRetryAfterSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_764_424_980)  // Sat, 29 Nov 2025 14:03:00 GMT
        #expect(RetryAfter.delay(HTTPResponse(status: 429, headers: ["Retry-After": "3"]), now: now) == 3)
        let later = HTTPResponse(status: 503, headers: ["retry-after": "Sat, 29 Nov 2025 14:03:10 GMT"])
        #expect(RetryAfter.delay(later, now: now) == 10)
        #expect(RetryAfter.delay(HTTPResponse(status: 503), now: now) == nil)
        #expect(RetryAfter.delay(HTTPResponse(status: 503, headers: ["Retry-After": "soon"]), now: now) == nil)
    }
}
