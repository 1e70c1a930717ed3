import AggregateCore
import AggregateSQL
import AggregateTestSupport
import Testing

@Suite struct SQLCatalogTests {
    @Test func placeholder() {}
}
