import AggregateRedis
import Foundation
import Testing

@Suite struct RESPParserTests {
    private func parse(_ text: String, limits: RESPLimits = .standard) throws -> (value: RESPValue, end: Int)? {
        try RESPParser(limits: limits).parse(Array(text.utf8))
    }

    @Test func readsEveryKindOfReply() throws {
        #expect(try parse("+OK\r\n")?.value == .simple("OK"))
        #expect(try parse("-ERR no\r\n")?.value == .error("ERR no"))
        #expect(try parse(":-42\r\n")?.value == .integer(-42))
        #expect(try parse("$5\r\nhe\r\no\r\n")?.value == .bulk(Data("he\r\no".utf8)))
        #expect(try parse("$0\r\n\r\n")?.value == .bulk(Data()))
        #expect(try parse("$-1\r\n")?.value == .bulk(nil))
        #expect(try parse("*-1\r\n")?.value == .array(nil))
        #expect(try parse("*0\r\n")?.value == .array([]))
        #expect(try parse("*2\r\n:1\r\n*1\r\n$1\r\nx\r\n")?.value == .array([.integer(1), .array([.bulk(Data("x".utf8))])]))
    }

    @Test func pipelinedRepliesAreReadOneAfterAnother() throws {
        let bytes = Array("+OK\r\n:7\r\n$-1\r\n".utf8)
        let parser = RESPParser()
        let first = try #require(try parser.parse(bytes))
        let second = try #require(try parser.parse(bytes, from: first.end))
        let third = try #require(try parser.parse(bytes, from: second.end))
        #expect([first.value, second.value, third.value] == [.simple("OK"), .integer(7), .bulk(nil)])
        #expect(third.end == bytes.count)
    }

    /// Every prefix of a valid reply is "not yet", never an error or a wrong value.
    @Test func truncatedRepliesWaitForMore() throws {
        let whole = "*3\r\n$3\r\nabc\r\n:12\r\n*2\r\n+x\r\n-y\r\n"
        let bytes = Array(whole.utf8)
        for cut in 0..<bytes.count {
            #expect(try RESPParser().parse(Array(bytes[0..<cut])) == nil, "prefix of \(cut) bytes")
        }
        #expect(try RESPParser().parse(bytes)?.end == bytes.count)
    }

    @Test(arguments: [
        ("?what\r\n", "not one of"),
        (":12x\r\n", "not a number"),
        (":\r\n", "not a number"),
        ("$-2\r\n", "no valid length"),
        ("$abc\r\n", "no valid length"),
        ("$3\r\nabcd\r\n", "does not end where"),
        ("*-5\r\n", "no valid length"),
        ("+OK\n", "LF without CR"),
        ("$99999999999999999999\r\n", "no valid length"),
        ("$2147483648\r\n", "over the"),
        ("*2147483647\r\n", "over the"),
    ])
    func hostileRepliesAreClearErrors(reply: String, reason: String) {
        #expect {
            _ = try RESPParser().parse(Array(reply.utf8))
        } throws: { error in
            (error as? RESPProtocolError)?.reason.contains(reason) == true
        }
    }

    @Test func limitsBoundLinesDepthAndCounts() {
        let small = RESPLimits(maxBulkBytes: 8, maxArrayCount: 4, maxDepth: 3, maxLineBytes: 16, maxReplyBytes: 1024)
        let cases = [
            ("+" + String(repeating: "a", count: 40), "longer than 16"),
            ("$9\r\n", "over the 8-byte"),
            ("*5\r\n", "over the 4-element"),
            ("*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", "deeper than 3"),
        ]
        for (reply, reason) in cases {
            #expect(throws: RESPProtocolError.self) { _ = try RESPParser(limits: small).parse(Array(reply.utf8)) }
            #expect((try? RESPParser(limits: small).parse(Array(reply.utf8))) == nil)
            do {
                _ = try RESPParser(limits: small).parse(Array(reply.utf8))
            } catch {
                #expect(error.reason.contains(reason), "\(reply): \(error.reason)")
            }
        }
    }

    /// A huge announced length with few bytes behind it allocates nothing and waits (the connection's reply cap and
    /// deadline end the wait).
    @Test func announcedLengthsAllocateNothingBeforeTheBytes() throws {
        #expect(try parse("$60000000\r\nabc") == nil)
        #expect(try parse("*900000\r\n:1\r\n") == nil)
    }

    /// Random bytes never crash the parser: each is a value, "not yet", or an error.
    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("+-:$*\r\n0123456789-abc".utf8)
        for _ in 0..<3000 {
            let count = Int.random(in: 0..<40, using: &generator)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            _ = try? RESPParser().parse(bytes)
        }
    }

    @Test func commandsAreEncodedAsArraysOfBulkStrings() {
        let encoded = RESPParser.encode([Data("SET".utf8), Data("k".utf8), Data("a\r\nb".utf8)])
        #expect(String(decoding: encoded, as: UTF8.self) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n")
    }

    @Test func urlsAreReadAndNeverShowThePassword() throws {
        let url = try RedisURL("redis://:s3cret-MARKER@127.0.0.1:6390/2")
        #expect(url.host == "127.0.0.1" && url.port == 6390 && url.database == 2 && url.password == "s3cret-MARKER" && url.user == nil)
        #expect(url.description == "redis://127.0.0.1:6390/2")
        let acl = try RedisURL("redis://app:p%40ss@[::1]")
        #expect(acl.host == "::1" && acl.port == 6379 && acl.database == 0 && acl.user == "app" && acl.password == "p@ss")
        #expect(acl.description == "redis://[::1]:6379/0")
        for bad in ["http://x", "redis://", "redis://h:0", "redis://h:70000", "redis://h/x", "redis://:pw-MARKER@h:99999", "redis://h/1?x=y"] {
            do {
                _ = try RedisURL(bad)
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(!error.description.contains("pw-MARKER"))
                #expect(error.description.contains("--store"))
            }
        }
    }
}
