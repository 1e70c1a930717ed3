import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateText
import Foundation
import MeetupProvider
import Testing

/// The `github` definition against the real captured responses in `../shared/api/samples/github` (when present):
/// every repository of every search page, Link paging, and each error and rate-limit answer in one line.
@Suite(.enabled(if: !DefinitionConformance.bodies("github").isEmpty, "the shared samples are not beside the package"))
struct GitHubConformanceTests {
    static let searchPages = DefinitionConformance.bodies("github").filter { $0.lastPathComponent.hasPrefix("search_repositories") }
    let github: DeclarativeProvider
    let query = DefinitionConformance.query("github", ["query": "tetris"])

    init() throws { github = try DefinitionConformance.provider("GitHub") }

    @Test func theSearchSamplesAreAllHere() {
        #expect(Self.searchPages.count >= 4)
    }

    @Test(arguments: searchPages)
    func everyRepositoryOfASearchPageBecomesAnItem(_ file: URL) throws {
        let response = try DefinitionConformance.response(file)
        let json = try JSONParser().parse(response.body)
        let page = try github.normalize(response, for: query)
        let repositories = try #require(json["items"]?.array)
        #expect(page.items.count == repositories.count)
        #expect(page.totalCount == json["total_count"]?.int)
        for (item, repository) in zip(page.items, repositories) {
            #expect(item.kind == "repository")
            #expect(item.id == repository["id"]?.idString)
            #expect(item.title == repository["full_name"]?.string)
            #expect(item.url == repository["html_url"]?.string)
            #expect(item.author == repository["owner"]?["login"]?.string)
            #expect(item.summary == repository["description"]?.nonEmptyString, "a null or empty description is no summary")
            #expect(item.createdAt == repository["created_at"]?.string.flatMap(UTCTimestamp.date(fromISO8601:)))
            #expect(item.metrics["stars"] == repository["stargazers_count"]?.decimal)
            #expect(item.metrics["forks"] == repository["forks_count"]?.decimal)
            #expect(item.metrics["openIssues"] == repository["open_issues_count"]?.decimal)
            #expect(item.tags == (repository["topics"]?.array ?? []).compactMap(\.string), "topics are absent before 2021")
            #expect(item.extra["language"] == repository["language"]?.nonEmptyString.map(JSONValue.string))
            #expect(item.extra["license"] == repository["license"]?["spdx_id"]?.nonEmptyString.map(JSONValue.string))
            #expect(item.extra["pushedAt"] != nil)
            _ = try Item(json: item.jsonValue)
        }
        let link = response.headers["Link"] ?? ""
        if let next = LinkHeader.url(link, relation: "next") {
            #expect(page.next == .cursor(next), "the next page is the Link header's URL as given")
        } else {
            #expect(page.next == nil, "no rel=\"next\" (or no Link header at all): the last page")
        }
    }

    @Test func theCappedSearchStillPagesByLinkAndCountsBeyondTheCap() throws {
        let file = try #require(Self.searchPages.first { $0.lastPathComponent.contains("page1_of_34") })
        let page = try github.normalize(try DefinitionConformance.response(file), for: query)
        #expect((page.totalCount ?? 0) > 1000, "total_count is not capped; the results are")
        guard case .cursor(let next)? = page.next else { Issue.record("expected a next page"); return }
        #expect(next.contains("page=2"))
    }

    @Test func badCredentialsAreAnAuthErrorNamingTheToken() throws {
        let file = try #require(DefinitionConformance.bodies("github").first { $0.lastPathComponent.hasPrefix("error_401") })
        let error = github.error(for: try DefinitionConformance.response(file, status: 401), query: query)
        #expect(error.kind == .auth)
        #expect(error.message.hasPrefix("Bad credentials (HTTP 401). Check GITHUB_TOKEN"))
    }

    /// A 403 with `x-ratelimit-remaining: 0` is a rate limit, told with the reset in local time.
    @Test func thePrimaryRateLimitSaysWhenItResetsInLocalTime() throws {
        let file = try #require(DefinitionConformance.bodies("github").first { $0.lastPathComponent.hasPrefix("error_403_primary_rate_limit_search_modern") })
        let response = try DefinitionConformance.response(file)
        #expect(response.status == 403)
        let reset = try #require(response.headers["x-ratelimit-reset"].flatMap(Double.init))
        let now = Date(timeIntervalSince1970: reset - 57)
        let error = github.error(for: response, query: DefinitionConformance.query("github", ["query": "tetris"], environment: ["TZ": "Asia/Tokyo"], now: now))
        #expect(error.kind == .rateLimited)
        #expect(error.message.hasPrefix("rate limited (HTTP 403): API rate limit exceeded for 203.0.113.7."))
        #expect(error.message.contains("resets at 19:32 local time (in 1 min)"), "10:32:02 UTC is 19:32 in Tokyo: \(error.message)")
        #expect(!error.message.contains("\n"))
    }

    @Test func theSecondaryRateLimitWaitsForRetryAfter() throws {
        let file = try #require(DefinitionConformance.bodies("github").first { $0.lastPathComponent.hasPrefix("error_403_secondary") })
        let response = try DefinitionConformance.response(file)
        #expect(response.headers["Retry-After"] == "60")
        let now = Date(timeIntervalSince1970: 1_540_275_416)  // the capture's Date: 2018-10-23 06:16:56 UTC
        let error = github.error(for: response, query: DefinitionConformance.query("github", ["query": "x"], environment: ["TZ": "UTC"], now: now))
        #expect(error.kind == .rateLimited)
        #expect(error.message.contains("abuse detection mechanism"))
        #expect(error.message.contains("resets at 06:17 local time (in 1 min)"), "\(error.message)")
        #expect(github.retryDelay(for: response, now: now) == 60)
    }

    /// 2013: `x-ratelimit-remaining: 0` but no reset header; still a rate limit, with no time to promise.
    @Test func theOlderPrimaryRateLimitIsReadFromItsHeadersToo() throws {
        let file = try #require(DefinitionConformance.bodies("github").first { $0.lastPathComponent.hasPrefix("error_403_primary_rate_limit_2013") })
        let response = try DefinitionConformance.response(file)
        let error = github.error(for: response, query: query)
        #expect(error.kind == .rateLimited)
        #expect(error.message.hasPrefix("rate limited (HTTP 403): API Rate Limit Exceeded for "))
        #expect(error.message.hasSuffix("wait before trying again"), "\(error.message)")
    }

    @Test func aValidationErrorNamesTheField() throws {
        let file = try #require(DefinitionConformance.bodies("github").first { $0.lastPathComponent.hasPrefix("error_422_search_q_missing") })
        let error = github.error(for: try DefinitionConformance.response(file, status: 422), query: query)
        #expect(error.message == "Validation Failed: field 'q' is missing (HTTP 422)")
        #expect(error.httpStatus == 422)
    }

    @Test func pagesPastTheThousandthResultAreRefusedInGitHubsWords() throws {
        let file = try #require(DefinitionConformance.bodies("github").first { $0.lastPathComponent.hasPrefix("error_422_search_past_1000") })
        let error = github.error(for: try DefinitionConformance.response(file, status: 422), query: query)
        #expect(error.message == "Only the first 1000 search results are available (HTTP 422)")
    }
}
