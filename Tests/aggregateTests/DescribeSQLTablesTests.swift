import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate describe <provider>` names the provider's `aggregate sql` tables, in text and JSON, and they are the
/// tables `aggregate sql --tables` lists: one per operation that reads.
@Suite struct DescribeSQLTablesTests {
    static let registry = try! TestRegistry.builtIn().registry

    @Test func theHeaderBlockNamesTMDbsTables() async throws {
        let text = await CLIHarness().run(["describe", "tmdb"])
        #expect(text.code == .success)
        #expect(text.stdout.contains("\nSQL tables              tmdb_search, tmdb_popular, tmdb_movie\n\n"), "\(text.stdout.prefix(1200))")
        let json = try JSONParser().parse(await CLIHarness().run(["describe", "tmdb", "--format", "json"]).stdout)
        #expect(json["sqlTables"] == ["tmdb_search", "tmdb_popular", "tmdb_movie"])
    }

    @Test func everyProvidersTablesAreTheOnesSQLLists() async throws {
        let listing = await CLIHarness().run(["sql", "--tables", "--format", "json"])
        #expect(listing.code == .success, "\(listing.stderr)")
        let tables = try #require(try JSONParser().parse(listing.stdout).array)
        for provider in Self.registry.providers {
            let name = provider.descriptor.name
            let expected = tables.filter { $0["provider"]?.string == name }.compactMap { $0["table"]?.string }
            let reading = provider.descriptor.operations.filter { !$0.writes }.map { "\(name)_\($0.name.replacingOccurrences(of: "-", with: "_"))" }
            #expect(expected == reading, "\(name): one table per operation that reads")
            let json = try JSONParser().parse(await CLIHarness().run(["describe", name, "--format", "json"]).stdout)
            #expect(json["sqlTables"] == .array(expected.map(JSONValue.string)), "\(name)")
            let text = await CLIHarness(width: 400).run(["describe", name]).stdout
            #expect(text.contains("\nSQL tables              \(expected.joined(separator: ", "))\n"), "\(name): \(text.prefix(1500))")
        }
    }

    @Test func aWritingOperationIsNoTable() async throws {
        let board = try #require(Self.registry.providers.first { $0.descriptor.name == "messageboard" }).descriptor
        #expect(board.operations.contains { $0.writes }, "the board has an operation that writes (post)")
        let json = try JSONParser().parse(await CLIHarness().run(["describe", "messageboard", "--format", "json"]).stdout)
        #expect(json["sqlTables"] == ["messageboard_list"])
    }

    @Test func providersListsTheTablesToo() async throws {
        let list = try #require(try JSONParser().parse(await CLIHarness().run(["providers", "--format", "json"]).stdout).array)
        let tmdb = try #require(list.first { $0["name"] == "tmdb" })
        #expect(tmdb["sqlTables"] == ["tmdb_search", "tmdb_popular", "tmdb_movie"])
    }
}
