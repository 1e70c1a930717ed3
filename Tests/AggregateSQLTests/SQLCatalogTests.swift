import AggregateCore
import AggregateSQL
import AggregateTestSupport
import Foundation
import Testing

/// Every provider operation that reads is a table, and its key columns are the operation's parameters.
@Suite struct SQLCatalogTests {
    let registry = try! TestRegistry.providers()
    var catalog: SQLCatalog { SQLCatalog(registry: registry) }

    @Test func everyReadingOperationIsATableNamedProviderUnderscoreOperation() {
        let expected = registry.providers.flatMap { provider in
            provider.descriptor.operations.filter { !$0.writes }.map { "\(provider.descriptor.name)_\($0.name.replacingOccurrences(of: "-", with: "_"))" }
        }
        #expect(catalog.tables.map(\.name) == expected)
        for name in ["tmdb_search", "tmdb_popular", "tmdb_movie", "github_search", "hackernews_search", "meetup_groups", "kiva_newest",
                     "kiva_search", "twitter_timeline", "messageboard_list"] {
            #expect(catalog.table(named: name) != nil, "\(name)")
        }
        #expect(catalog.table(named: "messageboard_post") == nil, "a writing operation stays a command")
    }

    @Test func keyColumnsMatchTheDescriptorsRequiredAndOptional() throws {
        for table in catalog.tables {
            let parameters = table.provider.descriptor.options + table.operation.parameters
            #expect(table.keyColumns.map(\.parameter.name).sorted() == parameters.map(\.name).sorted(), "\(table.name)")
            #expect(Set(table.keyColumns.filter(\.isRequired).map(\.parameter.name)) == Set(parameters.filter(\.isRequired).map(\.name)), "\(table.name)")
            // Table-valued-function arguments fill the hidden columns in order: the required ones come first.
            let firstOptional = table.keyColumns.firstIndex { !$0.isRequired } ?? table.keyColumns.count
            #expect(table.keyColumns[firstOptional...].allSatisfy { !$0.isRequired }, "\(table.name)")
            let names = table.columns.map(\.name) + table.keyColumns.map(\.name)
            #expect(Set(names).count == names.count, "\(table.name): no column name twice")
        }
        let search = try #require(catalog.table(named: "tmdb_search"))
        #expect(search.keyColumns.map(\.name) == ["query", "year"])
        #expect(search.keyColumns.map(\.isRequired) == [true, false])
        #expect(try #require(catalog.table(named: "tmdb_movie")).keyColumns.map(\.name) == ["movie_id"])
        #expect(try #require(catalog.table(named: "kiva_search")).keyColumns.map(\.name).contains("loan_country"))
        #expect(try #require(catalog.table(named: "meetup_groups")).keyColumns.filter(\.isRequired).map(\.name) == ["lat", "lon"])
    }

    @Test func columnsAreTheItemFieldsThenTheDeclaredMetricsInSnakeCase() throws {
        let item = ["provider", "kind", "id", "title", "subtitle", "summary", "url", "image_url", "author", "created_at", "city",
                    "country", "latitude", "longitude", "tags", "metrics", "extra"]
        for table in catalog.tables {
            #expect(Array(table.columns.map(\.name).prefix(item.count)) == item)
            #expect(table.columns.count == item.count + table.provider.descriptor.metrics.count)
        }
        let tmdb = try #require(catalog.table(named: "tmdb_popular")).columns.map(\.name)
        #expect(tmdb.contains("vote_average"))
        #expect(try #require(catalog.table(named: "github_search")).columns.map(\.name).contains("stars"))
    }

    /// The example takes its values from the provider's own example for the operation, which runs offline.
    @Test func theExampleOfEveryTableNamesItsRequiredKeys() {
        #expect(catalog.table(named: "tmdb_search")?.example == "SELECT title, url FROM tmdb_search('the amazing spider-man') LIMIT 5")
        #expect(catalog.table(named: "tmdb_movie")?.example == "SELECT title, url FROM tmdb_movie('1930') LIMIT 5")
        #expect(catalog.table(named: "twitter_timeline")?.example == "SELECT title, url FROM twitter_timeline('orbitalnotes') LIMIT 5")
        #expect(catalog.table(named: "meetup_groups")?.example == "SELECT title, url FROM meetup_groups('51.509980', '-0.133700') LIMIT 5")
        #expect(catalog.table(named: "tmdb_popular")?.example == "SELECT title, url FROM tmdb_popular LIMIT 5")
    }
}
