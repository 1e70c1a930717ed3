import AggregateDefinitions
import Testing

@Suite struct LinkHeaderTests {
    @Test func findsTheNextLinkAmongOthers() {
        let header = #"<https://api.github.com/search/repositories?q=tetris&page=2>; rel="next", <https://api.github.com/search/repositories?q=tetris&page=34>; rel="last""#
        #expect(LinkHeader.url(header, relation: "next") == "https://api.github.com/search/repositories?q=tetris&page=2")
        #expect(LinkHeader.url(header, relation: "last") == "https://api.github.com/search/repositories?q=tetris&page=34")
        #expect(LinkHeader.url(header, relation: "prev") == nil)
    }

    @Test func keepsCommasInsideTargetsAndReadsUnquotedAndMultipleRelations() {
        let header = "<https://x.example/s?tags=(story,poll)&page=3>; rel=\"prev first\", <https://x.example/s?page=5>;rel=next"
        #expect(LinkHeader.url(header, relation: "first") == "https://x.example/s?tags=(story,poll)&page=3")
        #expect(LinkHeader.url(header, relation: "NEXT") == "https://x.example/s?page=5")
        #expect(LinkHeader.url(nil, relation: "next") == nil)
        #expect(LinkHeader.url("garbage", relation: "next") == nil)
    }
}
