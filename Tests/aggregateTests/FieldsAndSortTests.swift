import AggregateCore
import AggregateProviders
import Foundation
import Testing

/// `--fields` and `--sort` through the built binary, for every provider's first example in every format.
@Suite struct FieldsAndSortTests {
    static let examples: [[String]] = allProviders.compactMap { $0.descriptor.examples.first?.arguments }

    @Test(arguments: examples)
    func everyFormatShowsOnlyTheChosenFieldsInTheChosenOrder(arguments: [String]) throws {
        let shape = ["--offline", "--quiet", "--fields", "title,id", "--sort", "-title"]
        let json = try Binary.run(arguments + shape + ["--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let result = try #require((document["results"] as? [[String: Any]])?.first)
        let items = try #require(result["items"] as? [[String: Any]])
        #expect(!items.isEmpty)
        #expect(items.allSatisfy { Set($0.keys) == ["title", "id"] })
        let titles = items.compactMap { $0["title"] as? String }
        let expected = titles.sorted { $0.compare($1, options: [.caseInsensitive, .numeric]) == .orderedDescending }
        #expect(titles == expected, "sorted by title, descending")
        let meta = try #require(result["meta"] as? [String: Any])
        #expect(meta["sortedLocally"] as? String == "-title")
        #expect(meta["fields"] as? [String] == ["title", "id"])

        let ndjson = try Binary.run(arguments + shape + ["--format", "ndjson"])
        let lines = ndjson.stdout.split(separator: "\n")
        #expect(lines.count == items.count)
        let lineTitles = try lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["title", "id"])
            return object["title"] as? String
        }
        #expect(lineTitles == titles)

        let csv = try Binary.run(arguments + shape + ["--format", "csv"])
        let rows = csv.stdout.components(separatedBy: "\r\n")
        #expect(rows.first == "title,id")
        #expect(rows.count == items.count + 2)

        let markdown = try Binary.run(arguments + shape + ["--format", "markdown"])
        #expect(markdown.stdout.hasPrefix("| title | id |\n| --- | --- |\n"))

        let text = try Binary.run(arguments + shape)
        let textLines = text.stdout.split(separator: "\n")
        #expect(textLines.first?.hasPrefix("title") == true && textLines.first?.hasSuffix("id") == true)
        #expect(textLines.count == items.count + 1)
        #expect(textLines.allSatisfy { $0.count <= 80 })
    }

    @Test func metricsSortNumericallyAndAnAbsentMetricIsAWarning() throws {
        let output = try Binary.run(["tmdb", "popular", "--offline", "--quiet", "--fields", "title,metrics.voteCount", "--sort", "-metrics.voteCount", "--format", "csv"])
        #expect(output.status == 0)
        let counts = output.stdout.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
            .compactMap { $0.split(separator: ",").last.flatMap { Int($0) } }
        #expect(counts.count > 3)
        #expect(counts == counts.sorted(by: >))

        let absent = try Binary.run(["kiva", "newest", "--offline", "--fields", "title,metrics.stars", "--limit", "2"])
        #expect(absent.status == 0)
        #expect(absent.stderr.contains("warning: kiva: no item has metrics.stars (the metrics here: borrowerCount, fundedAmount,"))
    }

    @Test(arguments: [
        (["--fields", "title,nope"], "Error: kiva: unknown field 'nope'. Valid fields: provider, kind, id, title,"),
        (["--sort", "colour"], "Error: kiva: unknown field 'colour'. Valid fields:"),
        (["--sort", "tags"], "Error: kiva: --sort needs a single value to compare, not 'tags'"),
        (["--fields", "title", "--raw"], "Error: kiva: --fields and --sort shape items; they cannot be used with --raw"),
    ])
    func badFieldNamesAreUsageErrors(extra: [String], firstLine: String) throws {
        let output = try Binary.run(["kiva", "newest", "--offline"] + extra)
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix(firstLine))
        if extra.contains("title,nope") { #expect(output.stderr.contains("metrics.<name>")) }
    }
}
