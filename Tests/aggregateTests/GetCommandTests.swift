import AggregateJSON
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate get URL` through the built binary against the emulator over loopback: the body as it came, the
/// --header credential masked in every output and in the cassette, and the documented exit codes.
@Suite(.serialized) struct GetCommandTests {
    static let secret = "get-test-secret-7731"

    @Test func printsTheBodyAndRecordsItWithTheHeaderMasked() throws {
        let sandbox = try LoopbackSandbox()
        let cassette = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-get-\(UUID().uuidString)")
        let url = sandbox.url + "/hackernews/search?query=swift&hitsPerPage=3"
        let output = try Binary.run(["get", url, "--header", "Authorization: Bearer \(Self.secret)", "--record", cassette.path, "--verbose"])
        #expect(output.status == 0, "\(output.stderr)")
        let body = try JSONParser().parse(output.stdout)
        #expect(body["hits"]?.array?.count == 3)
        #expect(output.stderr.contains("get: → GET \(url)"))
        let recorded = try String(contentsOf: cassette.appendingPathComponent("cassette.json"), encoding: .utf8)
        for text in [output.stdout, output.stderr, recorded] { #expect(!text.contains(Self.secret)) }
        let headers = try JSONParser().parse(Data(recorded.utf8))["exchanges"]?[0]?["request"]?["headers"]
        #expect(headers?.array?.contains(["Authorization", "Bearer ***"]) == true, "\(headers ?? .null)")
        // The cassette replays, and imports into a definition with a bearer token.
        let replay = try Binary.run(["get", url, "--replay", cassette.path])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout == output.stdout)
        let out = cassette.appendingPathComponent("imported")
        let imported = try Binary.run(["import", "recording", cassette.path, "--name", "hn-get", "--out", out.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("verified: 3 items from 1 exchange match"))
        let definition = try JSONParser().parse(Data(contentsOf: out.appendingPathComponent("provider.json")))
        #expect(definition["auth"] == [["variable": "HN_GET_TOKEN", "in": "bearer", "required": false]])
    }

    @Test func aSecondGetIsAnsweredFromTheDiskCacheWhichHoldsNoCredential() throws {
        let sandbox = try LoopbackSandbox()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-get-cache-\(UUID().uuidString)")
        let arguments = ["get", sandbox.url + "/hackernews/search?query=swift&hitsPerPage=2", "--header", "X-Api-Key: \(Self.secret)"]
        let first = try Binary.run(arguments, environment: ["XDG_CACHE_HOME": cache.path])
        #expect(first.status == 0, "\(first.stderr)")
        let served = sandbox.server.requestCount
        let second = try Binary.run(arguments + ["--verbose"], environment: ["XDG_CACHE_HOME": cache.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == first.stdout)
        #expect(sandbox.server.requestCount == served, "answered from the cache: \(second.stderr)")
        let files = FileManager.default.enumerator(at: cache, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        #expect(files.count > 1)
        for file in files {
            let data = (try? Data(contentsOf: file)) ?? Data()
            #expect(!String(decoding: data, as: UTF8.self).contains(Self.secret), "\(file.path)")
        }
        let fresh = try Binary.run(arguments + ["--no-cache"], environment: ["XDG_CACHE_HOME": cache.path])
        #expect(fresh.status == 0)
        #expect(sandbox.server.requestCount == served + 1)
    }

    @Test func errorsAreOneLineWithTheDocumentedExitCodes() throws {
        let sandbox = try LoopbackSandbox()
        let cases: [([String], Int32, String)] = [
            (["get"], 64, "name the URL"),
            (["get", "ftp://example.com/x"], 64, "is not an absolute http(s) URL"),
            (["get", "not a url"], 64, "is not an absolute http(s) URL"),
            (["get", sandbox.url + "/x", "--header", "no colon"], 64, "--header needs 'NAME: VALUE'"),
            (["get", sandbox.url + "/x", "--header", "A: 1", "--header", "B: 2"], 64, "'--header' given more than once"),
            (["get", sandbox.url + "/github/nothing-here", "--header", "X-Api-Key: \(Self.secret)"], 1, "HTTP 404"),
            (["get", "http://example.com/x"], 78, "refusing plain http"),
        ]
        for (arguments, status, words) in cases {
            let output = try Binary.run(arguments)
            #expect(output.status == status, "\(arguments): \(output.stderr)")
            #expect(output.stderr.hasPrefix("Error: "), "\(output.stderr)")
            #expect(output.stderr.contains(words), "\(arguments): \(output.stderr)")
            #expect(!output.stderr.contains(Self.secret))
            #expect(output.stdout.isEmpty)
        }
    }
}
