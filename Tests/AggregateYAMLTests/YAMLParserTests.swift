import AggregateJSON
import AggregateYAML
import Foundation
import Testing

@Suite struct YAMLParserTests {
    @Test func blockMapping() throws {
        #expect(try YAMLParser.parse("a: 1\nb: two\n") == ["a": 1, "b": "two"])
    }
}
