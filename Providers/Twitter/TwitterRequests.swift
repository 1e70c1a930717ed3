import AggregateCore
import Foundation

/// The timeline requests; the bearer token is attached by the core, never put in the URL or headers here.
enum TwitterRequests {
    typealias Plan = TwitterProvider.Plan

    /// The tweet fields every v2 timeline request asks for: each one the normalizer reads (`author_id` too, which
    /// X sends only when asked).
    static let tweetFields = "author_id,created_at,public_metrics,lang,entities,referenced_tweets,in_reply_to_user_id"

    /// `GET /2/users/:id/tweets`. `max_results` must be 5–100; when filtering, the largest page is asked for
    /// because excluded posts still count towards it.
    struct V2Timeline: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            guard let userID = call.plan.owner?.id else {
                throw AggregateError(.config, "the user id was not looked up before the timeline request")
            }
            let excluded = exclusions(call)
            return HTTPRequestSpec(url: call.url("/2/users/\(userID)/tweets", [
                ("max_results", String(excluded.isEmpty ? min(100, max(5, remaining)) : 100)),
                ("tweet.fields", tweetFields), ("expansions", "author_id"), ("user.fields", "username,name"),
                ("exclude", excluded.isEmpty ? nil : excluded.joined(separator: ",")), ("pagination_token", cursor),
            ]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try TwitterV2.timelinePage(response.json(), owner: call.plan.owner)
        }
    }

    /// `GET /1.1/statuses/user_timeline.json`. `count` is at most 200 and, as in v2, counts excluded posts too.
    struct V11Timeline: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            let excluded = exclusions(call)
            return HTTPRequestSpec(url: call.url("/1.1/statuses/user_timeline.json", [
                ("screen_name", call.plan.username), ("count", String(excluded.isEmpty ? min(200, max(1, remaining)) : 200)),
                ("tweet_mode", "extended"), ("exclude_replies", excluded.contains("replies") ? "true" : nil),
                ("include_rts", excluded.contains("retweets") ? "false" : "true"), ("max_id", cursor),
            ]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try TwitterV11.timelinePage(response.json(), username: call.plan.username)
        }
    }

    /// The `--exclude` words in a fixed order (`replies`, then `retweets`).
    static func exclusions(_ call: Call<Plan>) -> [String] {
        let given = call[TwitterProvider.exclude] ?? []
        return ["replies", "retweets"].filter(given.contains)
    }
}
