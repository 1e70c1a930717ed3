import AggregateSandboxKit
import Foundation
import Testing

@Suite struct SandboxMemoKitTests {
    @Test func earlyExitsAreAnswersAndAreKeptLikeOthers() {
        let memo = SandboxResponseMemo()
        var made = 0
        func answer(_ key: String) -> SandboxResponse {
            memo.answer(for: key) { () throws(SandboxExit) -> SandboxResponse in
                made += 1
                guard key == "good" else { throw SandboxExit(.text("bad \(key)", status: 400)) }
                return .text("ok", status: 200)
            }
        }
        #expect(answer("good").status == 200)
        #expect(answer("x").status == 400)
        #expect(answer("x").body == Data("bad x".utf8))
        #expect(answer("good").body == Data("ok".utf8))
        #expect(made == 2, "each key is made once, the exit too")
    }
}
