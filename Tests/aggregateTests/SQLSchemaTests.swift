import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate sql --format json` and `--plan --format json` against Schemas/sql-result.schema.json and
/// Schemas/sql-plan.schema.json, with Python's jsonschema as CI's .ci/validate_sql.py uses it (skipped where it is not
/// installed); the documents' shapes are checked here without it too.
@Suite struct SQLSchemaTests {
    /// A join with a failing table under --partial: rows, scans that worked and one that failed.
    static let statement = "SELECT p.title, m.runtime FROM tmdb_popular p JOIN tmdb_movie m ON m.movie_id = p.id WHERE p.id IN (SELECT id FROM tmdb_popular LIMIT 2) UNION ALL SELECT title, likes FROM twitter_timeline('nosuchuser99')"
    static let plan = "SELECT s.title, m.subtitle FROM tmdb_search('batman') s JOIN tmdb_movie m ON m.movie_id = s.id"

    static func documents() throws -> (result: Binary.Output, plan: Binary.Output) {
        (try Binary.run(["sql", statement, "--offline", "--partial", "--format", "json"]),
         try Binary.run(["sql", plan, "--offline", "--plan", "--format", "json"]))
    }

    @Test func theDocumentsHaveTheirShape() throws {
        let (result, plan) = try Self.documents()
        #expect(result.status == 3, "a failing table under --partial: \(result.stderr)")
        let document = try JSONParser().parse(result.stdout)
        #expect(document["schemaVersion"] == 1)
        #expect(document["columns"] == ["title", "runtime"])
        let rows = try #require(document["rows"]?.array)
        #expect(rows.count == 2 && rows.allSatisfy { $0.array?.count == 2 }, "\(rows)")
        #expect(document["meta"]?["rowCount"] == .int(rows.count))
        #expect(document["meta"]?["failures"]?.array?.compactMap { $0["table"]?.string } == ["twitter_timeline"])
        #expect(document["meta"]?["failures"]?[0]?["error"]?["kind"] == "notFound")
        #expect(plan.status == 0, "\(plan.stderr)")
        let scans = try #require(try JSONParser().parse(plan.stdout)["scans"]?.array)
        #expect(scans.compactMap { $0["table"]?.string } == ["tmdb_search", "tmdb_movie"])
        #expect(scans[1]["keys"] == [["column": "movie_id", "source": "joined"]])
    }

    @Test(.requires(OptionalTool.jsonschema)) func theDocumentsValidateAgainstTheSchemas() throws {
        let python = try #require(OptionalTool.jsonschema.path)
        let (result, plan) = try Self.documents()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-sql-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, output) in [("sql-result", result), ("sql-plan", plan)] {
            let file = folder.appendingPathComponent("\(name).json").path
            try output.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            let schema = TestPaths.packageRoot.appendingPathComponent("Schemas/\(name).schema.json").path
            let problems = try JSONSchemaValidator.problems(python: python, schema: schema, files: [file])
            #expect(problems == nil, "\(name): \(problems ?? "")")
        }
        // The schema is not a rubber stamp: a row value that is an object is refused.
        let bad = folder.appendingPathComponent("bad.json").path
        try result.stdout.replacingOccurrences(of: "\"rows\": [", with: "\"rows\": [[{}],").write(toFile: bad, atomically: true, encoding: .utf8)
        let schema = TestPaths.packageRoot.appendingPathComponent("Schemas/sql-result.schema.json").path
        #expect(try JSONSchemaValidator.problems(python: python, schema: schema, files: [bad]) != nil)
    }
}
