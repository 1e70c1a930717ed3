import AggregateCore
import AggregateHTTP
import Foundation
import MeetupProvider
import Testing
@testable import TwitterProvider

/// Every error answer X gives, in both APIs' shapes, maps to one clear line and the right kind.
@Suite struct TwitterErrorTests {
    func map(_ response: HTTPResponse, zone: String = "UTC") -> AggregateError {
        TwitterErrors.error(for: response, username: "nasa", now: twitterTestNow, timeZone: TimeZone(identifier: zone)!)
    }

    @Test func v2Unauthorized() {
        let error = map(twitterResponse(401, #"{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}"#))
        #expect(error == AggregateError(.auth, "the API token was rejected (HTTP 401). Check X_BEARER_TOKEN or TWITTER_BEARER_TOKEN.", httpStatus: 401))
        #expect(ExitCode(for: error) == .failure)
    }

    @Test func v11InvalidToken() {
        let error = map(twitterResponse(401, #"{"errors":[{"code":89,"message":"Invalid or expired token."}]}"#))
        #expect(error.kind == .auth)
        #expect(error.message == "the API token was rejected (HTTP 401, code 89). Check X_BEARER_TOKEN or TWITTER_BEARER_TOKEN.")
    }

    @Test func v2ClientNotEnrolled() {
        let body = #"{"client_id":"1","required_enrollment":"Appropriate Level of API Access","title":"Client Forbidden","detail":"Use an app in a project.","reason":"client-not-enrolled","type":"https://api.twitter.com/2/problems/client-forbidden"}"#
        let error = map(twitterResponse(403, body))
        #expect(error.kind == .auth)
        #expect(error.message.contains("client-not-enrolled"))
        #expect(error.message.contains("Project"))
        #expect(!error.message.contains("Appropriate Level"), "required_enrollment is not in the OpenAPI document's ClientForbiddenProblem")
    }

    @Test func v2InvalidRequestQuotesTheParameterMessage() {
        let body = #"{"errors":[{"parameters":{"max_results":["3"]},"message":"The `max_results` query parameter value [3] is not between 5 and 100"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}"#
        let error = map(twitterResponse(400, body))
        #expect(error.kind == .http)
        #expect(error.message == "the API rejected the request (HTTP 400: One or more parameters to your request was invalid.; The `max_results` query parameter value [3] is not between 5 and 100)")
    }

    @Test func v11Code34IsNoSuchUser() {
        let error = map(twitterResponse(404, #"{"errors":[{"code":34,"message":"Sorry, that page does not exist."}]}"#))
        #expect(error == AggregateError(.notFound, "no user named @nasa", httpStatus: 404))
    }

    @Test func v11Code453SaysTheAccessLevelIsTooLow() {
        let error = map(twitterResponse(403, #"{"errors":[{"message":"Your access level does not include this endpoint.","code":453}]}"#))
        #expect(error.kind == .auth)
        #expect(error.message.contains("higher access level"))
        #expect(error.message.contains("--api v2"))
        #expect(error.message.contains("code 453"))
    }

    @Test func v11ProtectedAccount() {
        let error = map(twitterResponse(401, #"{"request":"/1.1/statuses/user_timeline.json","error":"Not authorized."}"#))
        #expect(error == AggregateError(.auth, "@nasa's posts are protected: only approved followers can see them (HTTP 401: Not authorized.)", httpStatus: 401))
    }

    @Test func v11SuspendedUser() {
        #expect(map(twitterResponse(403, #"{"errors":[{"code":63,"message":"User has been suspended."}]}"#)).message == "@nasa is suspended")
    }

    @Test func a429WithAPlainTextBodySaysWhenTheLimitResetsInLocalTime() {
        // 1764425700 = 14:15 UTC, 15:15 in Paris, 23:15 in Tokyo; the test clock is 14:03 UTC.
        let response = twitterResponse(
            429, "Rate limit exceeded\n",
            headers: ["content-type": "text/plain;charset=utf-8", "x-rate-limit-limit": "15", "x-rate-limit-remaining": "0", "x-rate-limit-reset": "1764425700"])
        let utc = map(response)
        #expect(utc == AggregateError(.rateLimited, "rate limited (HTTP 429: Rate limit exceeded); the limit resets at 14:15 local time (in 12 min)", httpStatus: 429))
        #expect(map(response, zone: "Europe/Paris").message.hasSuffix("resets at 15:15 local time (in 12 min)"))
        #expect(map(response, zone: "Asia/Tokyo").message.hasSuffix("resets at 23:15 local time (in 12 min)"))
        #expect(ExitCode(for: utc) == .failure)
    }

    @Test func a429WithAJSONBody() {
        let response = twitterResponse(429, #"{"errors":[{"code":88,"message":"Rate limit exceeded"}]}"#, headers: ["x-rate-limit-reset": "1764425700"])
        #expect(map(response).message == "rate limited (HTTP 429: code 88: Rate limit exceeded); the limit resets at 14:15 local time (in 12 min)")
    }

    @Test func aResetOnAnotherDayShowsTheDate() {
        let response = twitterResponse(429, "Rate limit exceeded", headers: ["x-rate-limit-reset": "1764460800"])
        #expect(map(response).message.hasSuffix("the limit resets at 2025-11-30 00:00 local time (in about 9 h)"))
    }

    @Test func a429WithoutHeadersStillSaysWhatToDo() {
        let error = map(twitterResponse(429, "", headers: [:]))
        #expect(error.kind == .rateLimited)
        #expect(error.message == "rate limited (HTTP 429); X counts requests in 15-minute windows, so wait up to 15 minutes")
    }

    @Test func usageCapIsNotAWindow() {
        let body = #"{"title":"UsageCapExceeded","detail":"Usage cap exceeded: Monthly product cap","type":"https://api.twitter.com/2/problems/usage-capped","status":429}"#
        let error = map(twitterResponse(429, body, headers: ["x-rate-limit-reset": "1764425700"]))
        #expect(error.kind == .rateLimited)
        #expect(error.message.hasPrefix("the app's usage cap was reached (HTTP 429: Usage cap exceeded: Monthly product cap)"))
    }

    @Test func serverErrorsKeepTheAPIsWords() {
        #expect(map(twitterResponse(503, #"{"errors":[{"code":130,"message":"Over capacity"}]}"#)).message == "the API answered HTTP 503: code 130: Over capacity; try again later")
        #expect(map(twitterResponse(502, "<!DOCTYPE html><html><body>Bad gateway</body></html>", headers: ["Content-Type": "text/html"])).message == "the server answered HTTP 502 with an HTML page")
    }

    @Test func theRateLimitResetIsRead() throws {
        let limit = try #require(TwitterRateLimit(headers: ["x-rate-limit-limit": "900", "x-rate-limit-remaining": "0", "x-rate-limit-reset": "1764425700"], now: Date()))
        #expect(limit.reset == Date(timeIntervalSince1970: 1_764_425_700))
        #expect(TwitterRateLimit(headers: ["x-rate-limit-reset": "soon"], now: Date()) == nil)
    }

    @Test func theLocalTimeZoneComesFromTZ() throws {
        var query = try twitterQuery("nasa")
        query.environment["TZ"] = "Asia/Tokyo"
        #expect(TwitterProvider.localTimeZone(query).identifier == "Asia/Tokyo")
        query.environment["TZ"] = ":Europe/Paris"
        #expect(TwitterProvider.localTimeZone(query).identifier == "Europe/Paris")
        query.environment["TZ"] = "Not/AZone"
        #expect(TwitterProvider.localTimeZone(query) == TimeZone.current)
    }
}
