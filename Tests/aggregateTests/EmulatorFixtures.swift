import AggregateCore
import AggregateHTTP
import AggregateSandbox
import AggregateURLSession
import AggregateTestSupport
import Foundation
import Testing

/// Run-time copies of the GitHub and Hacker News definitions with thousands of generated records, written by the
/// tests into a temporary folder: what the result windows (1,000 results) need to be reached.
enum EmulatorFixtures {
    static let providers = TestPaths.packageRoot.appendingPathComponent("Providers")

    /// A plain GET of `path` on `server` (no credential), as it comes back.
    static func get(_ server: DefinitionServer, _ path: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        let url = try #require(URL(string: server.server.baseURL.absoluteString + path))
        return try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url, headers: headers))
    }

    /// The definition in `Providers/<folder>/provider.json` as a mutable dictionary.
    static func definition(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: providers.appendingPathComponent("\(folder)/provider.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Writes `definition` and its `samples` (file name → JSON object) into a new temporary folder.
    static func write(_ definition: [String: Any], samples: [String: Any]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("SampleData"), withIntermediateDirectories: true)
        for (name, body) in samples {
            try JSONSerialization.data(withJSONObject: body).write(to: folder.appendingPathComponent("SampleData/\(name)"))
        }
        let file = folder.appendingPathComponent("provider.json")
        try JSONSerialization.data(withJSONObject: definition, options: [.prettyPrinted]).write(to: file)
        return file
    }

    /// `bigsearch`: GitHub's `search` (without its rate budgets) over `count` generated Swift repositories, stars
    /// falling from `count`.
    static func bigGitHub(count: Int = 1500) throws -> URL {
        var definition = try self.definition("GitHub")
        definition["name"] = "bigsearch"
        definition["examples"] = nil
        // Only the search: the other operations' keyed samples are not copied.
        let operations = try #require(definition["operations"] as? [[String: Any]])
        definition["operations"] = operations.filter { $0["name"] as? String == "search" }
        definition["cache"] = nil
        // Unbudgeted: a run of 34 pages must not wait out GitHub's 10 searches a minute.
        definition["rateBudgets"] = nil
        definition["samples"] = ["search": ["SampleData/big.json"]]
        let items: [[String: Any]] = (1...count).map { number in
            [
                "id": number, "name": "repo-\(number)", "full_name": "owner\(number % 50)/repo-\(number)",
                "description": "Swift package number \(number)", "owner": ["login": "owner\(number % 50)"],
                "html_url": "https://github.com/owner\(number % 50)/repo-\(number)", "stargazers_count": count - number + 1,
                "forks_count": number % 100, "open_issues_count": 0, "language": "Swift", "topics": ["swift"],
                "created_at": "2020-01-01T00:00:00Z", "updated_at": "2025-01-01T00:00:00Z", "pushed_at": "2025-01-01T00:00:00Z",
            ]
        }
        return try write(definition, samples: [
            "big.json": ["total_count": count, "incomplete_results": false, "items": items],
        ])
    }

    /// `bighn`: Hacker News's definition over `count` generated stories, `points` = the story's number and
    /// `created_at_i` rising with it.
    static func bigHackerNews(count: Int = 1100) throws -> URL {
        var definition = try self.definition("HackerNews")
        definition["name"] = "bighn"
        definition["examples"] = nil
        definition["samples"] = ["search": ["SampleData/big.json"]]
        let hits: [[String: Any]] = (1...count).map { number in
            [
                "objectID": String(number), "title": "Swift story \(number)", "author": "a\(number)", "points": number,
                "num_comments": 0, "created_at_i": 1_700_000_000 + number, "created_at": "2023-11-14T22:13:20Z",
                "_tags": ["story", "author_a\(number)", "story_\(number)"],
            ]
        }
        return try write(definition, samples: [
            "big.json": [
                "hits": hits, "hitsPerPage": 20, "nbHits": count, "nbPages": 50, "page": 0, "params": "", "processingTimeMS": 1, "query": "",
            ],
        ])
    }
}
