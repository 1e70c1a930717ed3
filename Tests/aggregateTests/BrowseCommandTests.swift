import AggregateCore
import AggregateHTTP
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import AggregateText
import Foundation
import MeetupProvider
import Testing

/// Fixtures shared with the Core outline tests: our own documents in the captured responses' shapes.
let browseFixtures = TestPaths.testTarget("AggregateJSONTests").appendingPathComponent("Fixtures/browse")

/// A private temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-browse-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func file(_ name: String, _ text: String) throws -> String { try file(name, Array(text.utf8)) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// `aggregate browse` through the built binary: outlines, paths, and every bad input with its one line and exit code.
@Suite struct BrowseCommandTests {
    let meetup = browseFixtures.appendingPathComponent("meetup_v2_groups.json").path

    @Test func outlinesAFileToTheDefaultDepthCutTo80Columns() throws {
        let output = try Binary.run(["browse", meetup])
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty)
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.prefix(3) == ["results: array[1]", "  [0]: object{21}", "meta: object{12}"])
        #expect(lines.contains("  next = \"https://api.meetup.com/2/groups?zip=WC2N&page=1&offset=1&key=REDACTED\""))
        #expect(lines.allSatisfy { TextLayout.width($0) <= 80 })
        #expect(output.stdout.hasSuffix("lat = \"\"\n"))
    }

    @Test func pathDepthAndWidthShapeTheOutline() throws {
        let output = try Binary.run(["browse", meetup, "--path", "results[0]", "--depth", "1"], environment: ["COLUMNS": "40"])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 21)
        #expect(lines.contains("name = \"London French Meetup\""))
        #expect(lines.contains("topics: array[3]"))
        #expect(lines.contains("organizer: object{2}"))
        #expect(lines.contains("description = \"<p>Bonjour ! We meet eve…"))
        #expect(lines.allSatisfy { TextLayout.width($0) <= 40 })
        let topics = try Binary.run(["browse", meetup, "--path", "results.0.topics", "--items", "2"])
        #expect(topics.stdout == """
            [0]: object{3}
              urlkey = "french"
              name = "French Language"
              … 1 more key
            [1]: object{3}
              urlkey = "language-exchange"
              name = "Language Exchange"
              … 1 more key
            … 1 more element

            """)
        let scalar = try Binary.run(["browse", meetup, "--path", "results[-1].name"])
        #expect(scalar.stdout == "\"London French Meetup\"\n")
    }

    @Test func pathsPrintsEveryLeafUncutFromTheNode() throws {
        let all = try Binary.run(["browse", meetup, "--paths"])
        #expect(all.status == 0)
        #expect(all.stdout.contains("\nresults[0].topics[2].name = \"Francophone\"\n"))
        #expect(all.stdout.contains("results[0].description = \"<p>Bonjour ! We meet every Thursday near Covent Garden.</p>\\n<p>All levels — débutants welcome.</p>\"\n"))
        let topics = try Binary.run(["browse", meetup, "--paths", "--path", "results.-1.organizer"])
        #expect(topics.stdout == "results[0].organizer.member_id = 7730461\nresults[0].organizer.name = \"Camille Roussel\"\n")
    }

    @Test func readsStandardInputFromAProviderRawOutput() throws {
        let raw = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--offline", "--raw", "--quiet"])
        #expect(raw.status == 0)
        let outline = try Binary.run(["browse", "-", "--depth", "2"], stdin: raw.stdout)
        #expect(outline.status == 0)
        #expect(outline.stdout == "data: object{1}\n  groupSearch: object{3}\n")
        let names = try Binary.run(["browse", "-", "--paths", "--path", "data.groupSearch.edges"], stdin: raw.stdout)
        let nameLines = names.stdout.split(separator: "\n").filter { $0.hasSuffix("\"London Python Data Night\"") }
        #expect(nameLines == ["data.groupSearch.edges[0].node.name = \"London Python Data Night\""])
    }

    @Test func aMissingPathNamesTheFailingSegmentAndWhatWasThere() throws {
        let output = try Binary.run(["browse", meetup, "--path", "results.0.topcs.1"])
        #expect(output.status == 1)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: browse: --path results.0.topcs.1: no key \"topcs\" in results.0; keys there: utc_offset, country, visibility, city, timezone, created, topics, link, rating, description, lon, join_mode, organizer, members, name, id, state, urlname, category, lat and 1 more\n")
        let range = try Binary.run(["browse", meetup, "--path", "results[3]"])
        #expect(range.status == 1)
        #expect(range.stderr == "Error: browse: --path results[3]: index 3 is out of range in results; it has 1 element: indices 0...0 (or -1...-1)\n")
    }

    @Test(arguments: [
        ("", [0xEF, 0xBB, 0xBF] + Array("{\"ok\": true}".utf8), 0, "ok = true\n"),
        ("Error: browse: %@: the input is empty; expected a JSON document\n", [], 65, ""),
        ("Error: browse: %@: invalid JSON: expected ',' or '}' after an object member at line 3, column 3: \"b\": 2\n", Array("{\n  \"a\": 1\n  \"b\": 2\n}".utf8), 65, ""),
        ("Error: browse: %@: not valid UTF-8: byte 0xE9 at line 1, column 11; JSON must be UTF-8 (a Latin-1 file converts with iconv -f latin1 -t UTF-8)\n", Array("{\"city\": \"".utf8) + [0xE9] + Array("\"}".utf8), 65, ""),
        ("Error: browse: %@: the input looks like UTF-16; JSON must be UTF-8 (convert it, e.g. with iconv -t UTF-8)\n", [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00], 65, ""),
    ])
    func badFilesGiveOneLineAndExit65(expected: String, bytes: [UInt8], status: Int32, stdout: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = try scratch.file("input.json", bytes)
        let output = try Binary.run(["browse", path])
        #expect(output.status == status)
        #expect(output.stdout == stdout)
        #expect(output.stderr == expected.replacingOccurrences(of: "%@", with: path))
    }

    @Test func hundredThousandLevelsOfNestingAreRefusedWithoutACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let output = try Binary.run(["browse", "-"], stdin: deep)
        #expect(output.status == 65)
        #expect(output.stderr.hasPrefix("Error: browse: standard input: invalid JSON: nesting deeper than 512 levels (the most this tool reads) at line 1, column 513: [[["))
        #expect(output.stderr.split(separator: "\n").count == 1)
        let objects = String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(try Binary.run(["browse", "-", "--paths"], stdin: objects).status == 65)
    }

    @Test func aFileOverTheStreamingThresholdIsStreamedWithoutTheSizeCap() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.url.appendingPathComponent("big.json").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 200 << 20)  // sparse: takes no disk space
        try handle.close()
        // Streamed, so the cap does not refuse it; the zero bytes are refused as soon as they are read.
        let output = try Binary.run(["browse", path])
        #expect(output.status == 65)
        #expect(output.stderr == "Error: browse: \(path): the input looks like UTF-16 or UTF-32; JSON must be UTF-8 (convert it, e.g. with iconv -t UTF-8)\n")
        let element = #"{"id": 1, "title": "Fight Club", "tags": ["a", "b"]},"#
        let count = (9 << 20) / element.utf8.count + 1
        let valid = try scratch.file("valid.json", Array(("{\"results\": [" + String(repeating: element, count: count) + "{}]}").utf8))
        let outline = try Binary.run(["browse", valid, "--max-size", "1M"])
        #expect(outline.status == 0)
        #expect(outline.stdout.hasPrefix("results: array[\(count + 1)]\n  [0]: object{3}\n"))
        #expect(outline.stdout.hasSuffix("  … \(count + 1 - 50) more elements\n"))
        let small = try Binary.run(["browse", meetup, "--max-size", "1K"])
        #expect(small.stderr.hasPrefix("Error: browse: \(meetup) is 1.5 KiB, which is larger than the 1.0 KiB size cap"))
    }

    @Test func aTwoHundredMegabyteStreamStopsAtTheCap() throws {
        let output = try runStreaming(["browse", "-"], bytes: 200 << 20)
        #expect(output.status == 1)
        #expect(output.stderr == "Error: browse: standard input is larger than the 64 MiB size cap; raise it with --max-size, or cut the input down first\n")
        #expect(output.written < 200 << 20, "the binary stopped reading early")
    }

    @Test(arguments: [
        (["browse"], "Error: browse: missing <file|url|->: give a JSON file, an https:// URL, or - for standard input"),
        (["browse", "a.json", "b.json"], "Error: browse: unexpected argument 'b.json': browse reads one document"),
        (["browse", "x.json", "--paths", "-i"], "Error: browse: --paths and --interactive cannot be used together"),
        (["browse", "x.json", "--paths", "--depth", "3"], "Error: browse: --depth applies to the outline, not to --paths"),
        (["browse", "x.json", "-i", "--items", "3"], "Error: browse: --items applies to the outline, not to --interactive"),
        (["browse", "x.json", "--depth", "0"], "Error: browse: --depth must be a whole number from 1 to 100, not '0'"),
        (["browse", "x.json", "--max-size", "lots"], "Error: browse: --max-size must be a size from 1 byte to 4G, such as 500000, 512K, 64M or 1G, not 'lots'"),
        (["browse", "x.json", "--timeout", "0"], "Error: browse: --timeout must be a decimal number of seconds from 0.01 to 3600, not '0'"),
        (["browse", "x.json", "--path", "a..b"], "Error: browse: --path 'a..b': empty segment ('..'); write a key or an index between the dots at column 3"),
        (["browse", "x.json", "--path", "a[x]"], "Error: browse: --path 'a[x]': [x] is not an index; write a number such as [0], or quote a key: [\"x\"] at column 3"),
        (["browse", "ftp://example.org/x.json"], "Error: browse: only https:// (and http:// to loopback hosts) URLs can be browsed, not 'ftp://'"),
        (["browse", "x.json", "--dpth", "2"], "Error: browse: unknown option '--dpth'; did you mean '--depth'?"),
        (["browse", "x.json", "-i"], "Error: browse: --interactive needs a terminal on standard output; without one, use the outline (--depth) or --paths"),
    ])
    func usageErrorsExit64WithTheUsageLine(arguments: [String], firstLine: String) throws {
        let output = try Binary.run(arguments)
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(output.stderr.contains("Usage: aggregate browse <file|url|-> [--path <PATH>] [--depth <N> | --paths | -i] [<options>]"))
    }

    @Test func unopenableInputsExit66() throws {
        let missing = try Binary.run(["browse", "/nonexistent/groups.json"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "Error: browse: /nonexistent/groups.json: no such file\n")
        let directory = try Binary.run(["browse", browseFixtures.path])
        #expect(directory.status == 66)
        #expect(directory.stderr == "Error: browse: \(browseFixtures.path): is a directory, not a JSON file\n")
        let insecure = try Binary.run(["browse", "http://example.org/x.json"])
        #expect(insecure.status == 78)
        #expect(insecure.stderr.hasPrefix("Error: browse: refusing plain http:// to example.org: use https://"))
    }

    @Test func helpDocumentsTheCommandAndItsKeys() throws {
        let help = try Binary.run(["help", "browse"])
        #expect(help.status == 0)
        let flat = help.stdout.replacingOccurrences(of: "\n", with: " ")
        for text in [
            "OVERVIEW: Look inside any JSON document", "USAGE: aggregate browse <file|url|->", "ARGUMENTS:", "OPTIONS:",
            "--path <PATH>", "--depth <N>", "--items <N>", "--paths", "-i, --interactive", "--max-size <SIZE>", "--timeout <SECONDS>",
            "Enter, → or l steps into", "/ searches the keys and values", "q quits", "Ctrl-C (exit status 130)",
            "aggregate meetup --lat 51.5 --lon -0.13 --offline --raw | aggregate browse - --depth 2",
        ] {
            #expect(flat.contains(text), "help shows \(text)")
        }
        #expect(try Binary.run(["browse", "--help"]).stdout == help.stdout)
        #expect(try Binary.run(["--help"]).stdout.contains("  browse "))
    }

    /// Runs the binary with up to `bytes` spaces streamed into its standard input through a pipe, until it exits.
    /// Writes are non-blocking and bounded by a deadline, so a reader that stops reading cannot hang the test.
    private func runStreaming(_ arguments: [String], bytes: Int) throws -> (status: Int32, stderr: String, written: Int) {
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let descriptor = input.fileHandleForWriting.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let chunk = [UInt8](repeating: 0x20, count: 1 << 16)
        var written = 0
        let deadline = Date().addingTimeInterval(60)
        while written < bytes, process.isRunning, Date() < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min($0.count, bytes - written)) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                break  // EPIPE: the binary closed its end
            }
            written += count
        }
        try? input.fileHandleForWriting.close()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self), written)
    }
}

/// `aggregate browse URL` in-process with a fake transport, and against a real HTTP server on loopback.
@Suite struct BrowseURLTests {
    @Test func fetchesAURLThroughTheSharedFetchLayer() async throws {
        let log = RequestLog()
        var harness = CLIHarness()
        harness.makeTransport = {
            FakeTransport { request in
                log.append(request)
                return HTTPResponse(status: 200, body: Data(#"{"page": 1, "results": [{"id": 550}]}"#.utf8), url: request.url)
            }
        }
        let output = await harness.run(["browse", "https://api.example.org/3/search/movie?query=fight&api_key=abc123", "--timeout", "9", "--max-size", "2M"])
        #expect(output.code == .success)
        #expect(output.stdout == "page = 1\nresults: array[1]\n  [0]: object{1}\n")
        #expect(log.requests.count == 1)
        #expect(log.requests.first?.timeout == 9)
        #expect(log.requests.first?.maxResponseBytes == 2 << 20)
    }

    @Test func httpErrorsNameTheURLWithoutSecrets() async {
        var harness = CLIHarness()
        harness.makeTransport = { FakeTransport.json(#"{"status_message": "Invalid API key"}"#, status: 401) }
        let output = await harness.run(["browse", "https://api.example.org/3/movie/550?api_key=abc123secret"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: browse: https://api.example.org/3/movie/550?api_key=*** answered HTTP 401 with \"{\"status_message\": \"Invalid API key\"}\"\n")
    }

    @Test func invalidJSONFromAURLIsInvalidInput() async {
        var harness = CLIHarness()
        harness.makeTransport = { FakeTransport.json("<html><body>Maintenance</body></html>") }
        let output = await harness.run(["browse", "https://h.example/x.json"])
        #expect(output.code == .dataError)
        #expect(output.stderr == "Error: browse: https://h.example/x.json: invalid JSON: unexpected character '<', expected a value at line 1, column 1: <html><body>Maintena\n")
    }

    /// A body over 8 MiB is read as a stream, as a file of that size is: the outline and `--paths` are the file's,
    /// byte for byte, and an error late in the body is the file's error.
    @Test func aLargeBodyReadsAsTheSameFileDoes() async throws {
        let padding = String(repeating: "long title text ", count: 10)
        let rows = (0..<40_000).map { #"{"id": \#($0), "title": "row \#($0) \#(padding)café", "tags": ["a", "b\n"], "ok": true}"# }
        let body = Data(("{\"page\": 1, \"results\": [" + rows.joined(separator: ",") + "]}").utf8)
        #expect(body.count > 8 << 20)
        let broken = body.dropLast(2) + Data("}".utf8)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-browse-url-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, bytes) in [("whole", body), ("broken", broken)] {
            let file = folder.appendingPathComponent("\(name).json")
            try bytes.write(to: file)
            var harness = CLIHarness()
            harness.makeTransport = { FakeTransport { request in HTTPResponse(status: 200, body: bytes, url: request.url) } }
            for view in [[], ["--depth", "3"], ["--paths"]] {
                let fromURL = await harness.run(["browse", "https://h.example/\(name).json"] + view)
                let fromFile = await harness.run(["browse", file.path] + view)
                #expect(fromURL.code == fromFile.code, "\(name) \(view)")
                #expect(fromURL.stdout == fromFile.stdout, "\(name) \(view)")
                #expect(fromURL.stderr == fromFile.stderr.replacingOccurrences(of: file.path, with: "https://h.example/\(name).json"), "\(name) \(view)")
            }
        }
    }

    @Test func interactiveWithoutATerminalIsAUsageError() async {
        let output = await CLIHarness().run(["browse", "-", "-i"])
        #expect(output.code == .usage)
        #expect(output.stderr.hasPrefix("Error: browse: --interactive needs a terminal on standard output"))
    }
}

/// `aggregate browse URL` through the built binary against the project's sandbox server on loopback: the real
/// URLSession transport, retries, the size cap, HTTP errors and redaction of the key in the URL.
@Suite(.serialized) struct BrowseLoopbackTests {
    private func withServer(_ body: (SandboxServer, String) throws -> Void) throws {
        let registry = try SandboxCatalog(allProviders, sandboxes: allSandboxes)
        let server = SandboxServer(catalog: registry, configuration: SandboxServerConfiguration(port: 0, log: { _ in }))
        _ = try server.start()
        defer { server.stop() }
        let key = try #require(registry.sandbox(named: "meetup")?.sandboxEnvironment["MEETUP_API_KEY"])
        try body(server, key)
    }

    @Test func browsesASandboxResponse() throws {
        try withServer { server, key in
            let url = "http://127.0.0.1:\(server.port)/meetup/2/groups?lat=51.5&lon=-0.13&key=\(key)"
            let output = try Binary.run(["browse", url, "--depth", "1"])
            #expect(output.status == 0)
            #expect(output.stdout.hasPrefix("results: array["))
            #expect(output.stdout.contains("\nmeta: object{"))
            let name = try Binary.run(["browse", url, "--path", "results[0].name"])
            #expect(name.status == 0)
            #expect(name.stdout.hasPrefix("\""))
        }
    }

    @Test func retriesA503AndStopsAtTheSizeCap() throws {
        try withServer { server, key in
            let url = "http://127.0.0.1:\(server.port)/meetup/2/groups?lat=51.5&lon=-0.13&key=\(key)"
            server.addFault(try SandboxFault.parse("status=503; retry-after=0; times=1"))
            let retried = try Binary.run(["browse", url, "--depth", "1"])
            #expect(retried.status == 0)
            #expect(retried.stdout.hasPrefix("results: array["))
            server.removeAllFaults()
            server.addFault(try SandboxFault.parse("size=2MiB"))
            let capped = try Binary.run(["browse", url, "--max-size", "1M"])
            #expect(capped.status == 1)
            #expect(capped.stderr == "Error: browse: http://127.0.0.1:\(server.port)/meetup/2/groups?lat=51.5&lon=-0.13&key=***: the response is larger than the 1 MiB size cap; raise it with --max-size\n")
        }
    }

    @Test func httpErrorsNameTheStatusAndHideTheKey() throws {
        try withServer { server, _ in
            let output = try Binary.run(["browse", "http://127.0.0.1:\(server.port)/meetup/2/groups?lat=51.5&lon=-0.13&key=wrong-key-1234"])
            #expect(output.status == 1)
            #expect(output.stderr.hasPrefix("Error: browse: http://127.0.0.1:\(server.port)/meetup/2/groups?lat=51.5&lon=-0.13&key=*** answered HTTP 401 with "))
            #expect(!output.stderr.contains("wrong-key-1234"))
        }
    }
}
