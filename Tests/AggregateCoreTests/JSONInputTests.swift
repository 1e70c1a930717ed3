import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

@Suite struct JSONInputTests {
    private func decodeError(_ bytes: [UInt8]) -> AggregateError? {
        do {
            _ = try JSONInput.decode(Data(bytes), name: "in.json")
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesAndSkipsAUTF8ByteOrderMark() throws {
        #expect(try JSONInput.decode(Data([0xEF, 0xBB, 0xBF] + Array(#"{"a": "é"}"#.utf8)), name: "x") == ["a": "é"])
    }

    @Test(arguments: [
        ([UInt8](), "in.json: the input is empty; expected a JSON document"),
        ([0xEF, 0xBB, 0xBF], "in.json: the input is empty; expected a JSON document"),
        (Array("  \n ".utf8), "in.json: invalid JSON: no JSON value (only whitespace) at line 2, column 2"),
        (Array("{\"a\": 1,\n \"b\" 2}".utf8), #"in.json: invalid JSON: expected ':' after a key at line 2, column 6: "b" 2}"#),
        (Array("[1, 2".utf8), "in.json: invalid JSON: unexpected end of input inside an array at line 1, column 6: [1, 2"),
        (Array("[\"a\u{1B}[31m\"]".utf8), "in.json: invalid JSON: control character in a string (must be escaped) at line 1, column 4: [\"a\u{FFFD}[31m\"]"),
        ([0xFF, 0xFE, 0x5B, 0x00], "in.json: the input looks like UTF-16; JSON must be UTF-8 (convert it, e.g. with iconv -t UTF-8)"),
        ([0xFE, 0xFF, 0x00, 0x5B], "in.json: the input looks like UTF-16; JSON must be UTF-8 (convert it, e.g. with iconv -t UTF-8)"),
        ([0x5B, 0x00, 0x5D, 0x00], "in.json: the input looks like UTF-16 or UTF-32; JSON must be UTF-8 (convert it, e.g. with iconv -t UTF-8)"),
        ([0xFF, 0xFE, 0x00, 0x00], "in.json: the input looks like UTF-32; JSON must be UTF-8 (convert it, e.g. with iconv -t UTF-8)"),
        (Array("{\n  \"city\": \"Montr".utf8) + [0xE9] + Array("al\"}".utf8),
            "in.json: not valid UTF-8: byte 0xE9 at line 2, column 17; JSON must be UTF-8 (a Latin-1 file converts with iconv -f latin1 -t UTF-8)"),
    ])
    func rejectsBadInputWithOneLine(bytes: [UInt8], message: String) {
        let error = decodeError(bytes)
        #expect(error?.kind == .invalidInput)
        #expect(error?.message == message)
        #expect(error.map { ExitCode(for: $0) } == .dataError)
    }

    @Test func refusesNestingDeeperThanTheParserLimitWithoutCrashing() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000) + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        let error = decodeError(deep)
        #expect(error?.kind == .invalidInput)
        #expect(error?.message.hasPrefix("in.json: invalid JSON: nesting deeper than 512 levels (the most this tool reads) at line 1, column 513: ") == true)
    }

    @Test(arguments: [
        ([0xC3, 0x28], 0), ([0xE2, 0x82], 0), ([0xC0, 0x80], 0), ([0xED, 0xA0, 0x80], 0), ([0xF4, 0x90, 0x80, 0x80], 0),
        ([0x61, 0xF8], 1), ([0x61, 0x80], 1),
    ])
    func findsInvalidUTF8(bytes: [UInt8], offset: Int) {
        let error = decodeError(bytes)
        #expect(error?.message.contains("not valid UTF-8: byte \(String(format: "0x%02X", bytes[offset])) at line 1, column \(offset + 1)") == true)
    }

    @Test func acceptsEveryUTF8Length() throws {
        #expect(try JSONInput.decode(Data(#"["a", "é", "€", "🎉"]"#.utf8), name: "x") == ["a", "é", "€", "🎉"])
    }

    @Test func refusesALargeFileFromItsSizeBeforeReadingIt() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-input-\(UUID().uuidString).json")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 200 << 20)  // sparse: 200 MiB of nothing on disk
        try handle.close()
        do {
            _ = try JSONInput.readFile(atPath: url.path, maxBytes: 64 << 20)
            Issue.record("a 200 MiB file should be refused")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.message == "\(url.path) is 200 MiB, which is larger than the 64 MiB size cap; raise it with --max-size, or cut the input down first")
        }
    }

    @Test func stopsReadingAStreamPastTheCap() throws {
        let pipe = Pipe()
        let writer = Thread {
            let chunk = Data(repeating: 0x20, count: 4096)
            // Writes until the reader closes its end (EPIPE is ignored by the test process's SIGPIPE setting below).
            for _ in 0..<1024 where (try? pipe.fileHandleForWriting.write(contentsOf: chunk)) != nil {}
            try? pipe.fileHandleForWriting.close()
        }
        signal(SIGPIPE, SIG_IGN)
        writer.start()
        do {
            _ = try JSONInput.read(pipe.fileHandleForReading, name: "standard input", maxBytes: 100_000)
            Issue.record("4 MiB should be over a 100,000-byte cap")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.message == "standard input is larger than the 97.7 KiB size cap; raise it with --max-size, or cut the input down first")
        }
        try pipe.fileHandleForReading.close()
    }

    @Test func readsAStreamUnderTheCap() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data("[1, 2, 3]".utf8))
        try pipe.fileHandleForWriting.close()
        let data = try JSONInput.read(pipe.fileHandleForReading, name: "standard input", maxBytes: 9)
        #expect(String(decoding: data, as: UTF8.self) == "[1, 2, 3]")
    }

    @Test func namesMissingFilesAndDirectories() {
        #expect(throws: AggregateError(.noInput, "/nonexistent/x.json: no such file")) {
            try JSONInput.readFile(atPath: "/nonexistent/x.json", maxBytes: 10)
        }
        let directory = FileManager.default.temporaryDirectory.path
        #expect(throws: AggregateError(.noInput, "\(directory): is a directory, not a JSON file")) {
            try JSONInput.readFile(atPath: directory, maxBytes: 10)
        }
    }
}

@Suite struct DocumentFetchTests {
    @Test func fetchesOneURLThroughTheFetchLayerWithRetries() async throws {
        let log = RequestLog()
        let attempts = Counter()
        let transport = FakeTransport { request in
            log.append(request)
            if attempts.increment() == 1 { return HTTPResponse(status: 503, headers: ["Retry-After": "0"], url: request.url) }
            return HTTPResponse(status: 200, body: Data(#"{"ok": true}"#.utf8), url: request.url)
        }
        let fetcher = Fetcher(transport: transport, options: testFetchOptions(timeout: 7, maxResponseBytes: 1000))
        let body = try await fetcher.fetchDocument(URL(string: "https://api.example.org/v1/thing?id=3")!)
        #expect(String(decoding: body, as: UTF8.self) == #"{"ok": true}"#)
        #expect(log.requests.count == 2)
        #expect(log.requests.first?.timeout == 7)
        #expect(log.requests.first?.maxResponseBytes == 1000)
        #expect(log.requests.first?.headers["Authorization"] == nil)
    }

    @Test func followsRedirects() async throws {
        let transport = FakeTransport { request in
            if request.url.path == "/old" { return HTTPResponse(status: 301, headers: ["Location": "/new"], url: request.url) }
            return HTTPResponse(status: 200, body: Data("[1]".utf8), url: request.url)
        }
        let body = try await Fetcher(transport: transport, options: testFetchOptions()).fetchDocument(URL(string: "https://h.example/old")!)
        #expect(body == Data("[1]".utf8))
    }

    @Test(arguments: [
        (404, "https://h.example/x?key=*** answered HTTP 404 with \"{\"error\": \"nope\"}\"", AggregateError.Kind.notFound),
        (500, "https://h.example/x?key=*** answered HTTP 500 with \"{\"error\": \"nope\"}\"", .http),
        (401, "https://h.example/x?key=*** answered HTTP 401 with \"{\"error\": \"nope\"}\"", .auth),
    ])
    func namesTheStatusWithTheURLRedacted(status: Int, message: String, kind: AggregateError.Kind) async {
        let transport = FakeTransport.json(#"{"error": "nope"}"#, status: status)
        do {
            _ = try await Fetcher(transport: transport, options: testFetchOptions()).fetchDocument(URL(string: "https://h.example/x?key=s3cr3t-value")!)
            Issue.record("should fail")
        } catch {
            #expect(error.kind == kind)
            #expect(error.provider == "browse")
            #expect(error.message == message)
            #expect(!error.message.contains("s3cr3t"))
        }
    }

    @Test func refusesPlainHTTPExceptToLoopback() async {
        do {
            _ = try await Fetcher(transport: FakeTransport.json("[]"), options: testFetchOptions()).fetchDocument(URL(string: "http://example.com/x.json")!)
            Issue.record("should refuse")
        } catch {
            #expect(error.kind == .config)
            #expect(error.message.hasPrefix("refusing plain http:// to example.com"))
        }
        let local = try? await Fetcher(transport: FakeTransport.json("[]"), options: testFetchOptions()).fetchDocument(URL(string: "http://127.0.0.1:9/x.json")!)
        #expect(local == Data("[]".utf8))
    }

    @Test func aBodyOverTheCapIsTooLarge() async {
        let transport = FakeTransport.json(String(repeating: " ", count: 2000) + "[]")
        do {
            _ = try await Fetcher(transport: transport, options: testFetchOptions(maxResponseBytes: 1000)).fetchDocument(URL(string: "https://h.example/big")!)
            Issue.record("should be too large")
        } catch {
            #expect(error.kind == .tooLarge)
        }
    }

    @Test func passwordsInURLsAreNotShown() {
        #expect(URL(string: "https://user:hunter22@h.example/x?token=abc&q=1")!.redactedForDisplay == "https://user:***@h.example/x?token=***&q=1")
    }
}
