import AggregateSandboxKit
import Foundation
import Testing

@Suite struct SandboxResponseMemoTests {
    @Test func aKeyIsMadeOnceAndTheMemoStaysBounded() {
        let memo = SandboxResponseMemo(capacity: 2)
        var made = 0
        func answer(_ key: String) -> SandboxResponse {
            memo.response(for: key) {
                made += 1
                return .text(key, status: 200)
            }
        }
        #expect(answer("a").body == Data("a".utf8))
        #expect(answer("a").body == Data("a".utf8))
        #expect(made == 1)
        _ = answer("b")
        _ = answer("c")  // over capacity: starts over
        _ = answer("a")
        #expect(made == 4)
    }

    @Test func keysDifferByQueryOrderAndExtras() {
        let first = SandboxRequest(method: "GET", path: "/x", query: [("a", "1"), ("b", "2")])
        let second = SandboxRequest(method: "GET", path: "/x", query: [("b", "2"), ("a", "1")])
        #expect(SandboxResponseMemo.key(first) != SandboxResponseMemo.key(second))
        #expect(SandboxResponseMemo.key(first, extra: ["http://a"]) != SandboxResponseMemo.key(first, extra: ["http://b"]))
        // No value can be crafted to read as two others.
        let joined = SandboxRequest(method: "GET", path: "/x", query: [("a", "1"), ("b", "2")])
        let crafted = SandboxRequest(method: "GET", path: "/x", query: [("a", "1" + "1:b1:2")])
        #expect(SandboxResponseMemo.key(joined) != SandboxResponseMemo.key(crafted))
    }
}
