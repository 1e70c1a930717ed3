import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateURLSession
import Foundation
import Testing

/// The `vault` fixture's OAuth2 client-credentials grant: the engine against the emulator's token endpoint on a real
/// loopback server, and the binary end to end, with a scan of every file it wrote for the secret and the token.
@Suite(.serialized) struct DefinitionOAuth2Tests {
    static let definition = DefinitionFixtures.folder.appendingPathComponent("vault/provider.json")
    /// The emulator's client secret: the marker no file, stream or cassette may hold.
    static let secret = "sandbox-vault-client-secret"
    static let environment = ["VAULT_CLIENT_ID": "sandbox-vault-client-id", "VAULT_CLIENT_SECRET": secret]

    /// The emulator of `vault` on 127.0.0.1, with its log, so tests count the token requests it answered.
    final class TokenServer: @unchecked Sendable {
        let catalog: SandboxCatalog
        let server: SandboxServer
        private let lock = NSLock()
        private var lines: [String] = []

        init(settings: [String: String] = [:]) throws {
            catalog = try SandboxCatalog.withDefinitions(swift: [], sandboxes: [], builtIn: [], samples: [:], files: [DefinitionOAuth2Tests.definition])
            var configuration = SandboxServerConfiguration(host: "127.0.0.1", port: 0, log: { _ in })
            configuration.settings = settings
            let box = Log()
            configuration.log = { line in box.append(line) }
            server = SandboxServer(catalog: catalog, configuration: configuration)
            log = box
            try server.start()
        }

        deinit { server.stop() }

        let log: Log

        var baseURL: String { server.baseURL.appendingEndpoint("/vault").absoluteString }

        /// `count` once it equals `expected`, or after two seconds: the server logs a request just after answering
        /// it, so the client may see the answer before the line is there.
        func settled(_ count: () -> Int, _ expected: Int) -> Int {
            let deadline = Date().addingTimeInterval(2)
            while count() != expected, Date() < deadline { usleep(10_000) }
            return count()
        }
        /// How many token requests, and how many API requests it refused with 401.
        var tokenRequests: Int { log.lines.filter { $0.contains("POST /vault/oauth/token -> 200") }.count }
        var refusedTokenRequests: Int { log.lines.filter { $0.contains("POST /vault/oauth/token -> 401") }.count }
        var unauthorized: Int { log.lines.filter { $0.contains("GET /vault/records") && $0.contains("-> 401") }.count }

        /// Runs `records` with `cache` as the token cache and `now` as the client's clock.
        func run(cache: ClientCredentialsTokenCache?, environment: [String: String] = DefinitionOAuth2Tests.environment, now: Date? = nil) async throws -> ProviderResult {
            var runner = ProviderRunner(catalog: catalog, environment: environment, makeTransport: { URLSessionTransport() }, retrySleep: { _ in })
            runner.tokenCache = cache
            if let now { runner.clock = { now } }
            let provider = try #require(catalog.registry.provider(named: "vault"))
            return await runner.run(provider, operation: "records", parameters: [:], settings: ProviderRunner.Settings(limit: 20, baseURL: baseURL))
        }
    }

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func append(_ line: String) { lock.withLock { stored.append(line) } }
        var lines: [String] { lock.withLock { stored } }
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-oauth2-\(UUID().uuidString)")
    }

    static func cacheFiles(_ folder: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []).filter { $0.pathExtension == "json" }
    }

    // MARK: Loopback

    @Test func aFirstRunFetchesATokenAndASecondRunReusesTheKeptOne() async throws {
        let server = try TokenServer()
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ClientCredentialsTokenCache(directory: folder)
        let first = try await server.run(cache: cache)
        #expect(first.error == nil, "\(String(describing: first.error))")
        #expect(first.items.map(\.id) == ["r1", "r2", "r3"])
        #expect(server.settled({ server.tokenRequests }, 1) == 1, "one token for both pages")
        let second = try await server.run(cache: cache)
        #expect(second.error == nil)
        #expect(server.settled({ server.tokenRequests }, 1) == 1, "the second run reuses the kept token")
        let files = Self.cacheFiles(folder)
        try #require(files.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: files[0].path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? NSNumber
        #expect(folderMode?.intValue == 0o700)
        let text = try String(contentsOf: files[0], encoding: .utf8)
        #expect(!text.contains(Self.secret))
        #expect(!text.contains("sandbox-vault-client-id"), "the client id is only hashed into the file name")
        #expect(!files[0].lastPathComponent.contains("vault"))
    }

    @Test func anExpiredTokenIsReplacedByANewOne() async throws {
        let server = try TokenServer()
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ClientCredentialsTokenCache(directory: folder)
        #expect(try await server.run(cache: cache).error == nil)
        let kept = try #require(Self.cacheFiles(folder).first).path
        let before = try String(contentsOfFile: kept, encoding: .utf8)
        // 59 minutes on: inside the hour's lifetime but within its margin (a tenth, at most a minute).
        #expect(try await server.run(cache: cache, now: Date().addingTimeInterval(59 * 60 + 30)).error == nil)
        #expect(server.settled({ server.tokenRequests }, 2) == 2, "a token about to expire is not sent")
        #expect(try String(contentsOfFile: kept, encoding: .utf8) != before, "the new token replaced the old one")
        #expect(try await server.run(cache: cache, now: Date().addingTimeInterval(60 * 30)).error == nil)
        #expect(server.settled({ server.tokenRequests }, 2) == 2, "the new one is good for its own hour")
    }

    @Test func aRevokedTokenIsRefreshedOnceAndTheRequestSentAgain() async throws {
        let server = try TokenServer()
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ClientCredentialsTokenCache(directory: folder)
        #expect(try await server.run(cache: cache).error == nil)
        // A token the server no longer knows (revoked, or issued before it restarted), not yet expired by the clock.
        let tokenURL = try #require(URL(string: server.baseURL + "/oauth/token"))
        try cache.save(
            ClientCredentialsTokenCache.Token(value: "sbx.9999999999.0.revoked", expiresAt: Date().addingTimeInterval(3000)), lifetime: 3600,
            provider: "vault", tokenURL: tokenURL, clientID: "sandbox-vault-client-id")
        let result = try await server.run(cache: cache)
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.items.count == 3)
        #expect(server.settled({ server.unauthorized }, 1) == 1, "one 401, then the new token")
        #expect(server.settled({ server.tokenRequests }, 2) == 2)
        #expect(cache.load(provider: "vault", tokenURL: tokenURL, clientID: "sandbox-vault-client-id")?.token.value != "sbx.9999999999.0.revoked")
    }

    @Test func aSecond401AfterTheRefreshIsAnAuthError() async throws {
        // Tokens that are expired when issued: the API refuses the first and the refreshed one alike.
        let server = try TokenServer(settings: [DefinitionSandbox.tokenLifetimeSetting: "0"])
        let result = try await server.run(cache: nil)
        let error = try #require(result.error)
        #expect(error.kind == .auth)
        #expect(error.httpStatus == 401)
        #expect(error.message.contains("the access token has expired"), "\(error.message)")
        #expect(server.settled({ server.tokenRequests }, 2) == 2, "one refresh, not a loop")
        #expect(server.settled({ server.unauthorized }, 2) == 2)
        #expect(ExitCode(for: error) == .failure, "auth errors exit as the project maps them")
    }

    @Test func aRejectedClientIsOneLineNamingTheVariablesAndNotTheSecret() async throws {
        let server = try TokenServer()
        var environment = Self.environment
        environment["VAULT_CLIENT_SECRET"] = "wrong-secret-4f2a"
        let error = try #require(try await server.run(cache: nil, environment: environment).error)
        #expect(error.kind == .auth)
        #expect(error.description == "vault: the token endpoint \(server.baseURL)/oauth/token rejected the client (invalid_client), HTTP 401: check VAULT_CLIENT_ID and VAULT_CLIENT_SECRET")
        #expect(!error.description.contains("wrong-secret-4f2a"))
        #expect(server.settled({ server.refusedTokenRequests }, 1) == 1)
        environment["VAULT_CLIENT_SECRET"] = nil
        let missing = try #require(try await server.run(cache: nil, environment: environment).error)
        #expect(missing.kind == .config)
        #expect(missing.message.hasPrefix("VAULT_CLIENT_SECRET is not set"))
    }

    @Test func anUnreachableTokenEndpointNamesItAndWhatToCheck() async throws {
        let catalog = try SandboxCatalog.withDefinitions(swift: [], sandboxes: [], builtIn: [], samples: [:], files: [Self.definition])
        let runner = ProviderRunner(catalog: catalog, environment: Self.environment, makeTransport: { URLSessionTransport() }, retrySleep: { _ in })
        let provider = try #require(catalog.registry.provider(named: "vault"))
        let result = await runner.run(provider, operation: "records", parameters: [:], settings: ProviderRunner.Settings(baseURL: "http://127.0.0.1:1/vault"))
        let error = try #require(result.error)
        #expect(error.description.hasPrefix("vault: could not get an OAuth2 token from http://127.0.0.1:1/vault/oauth/token: "))
        #expect(error.message.hasSuffix("check the token URL (or --base-url)"))
    }

    @Test func theEmulatorChecksTheClientAndTheTokensLifetime() throws {
        let definition = try ProviderDefinition(json: Data(contentsOf: Self.definition))
        let sandbox = DefinitionSandbox(definition, folder: Self.definition.deletingLastPathComponent())
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let context = SandboxContext(baseURL: URL(string: "http://127.0.0.1/vault")!, now: now)
        let basic = "Basic " + Data("sandbox-vault-client-id:\(Self.secret)".utf8).base64EncodedString()
        let body = Data("grant_type=client_credentials&scope=records%3Aread".utf8)
        let issued = try #require(sandbox.sandboxResponse(for: SandboxRequest(method: "POST", path: "/oauth/token", headers: ["Authorization": basic], body: body), context: context))
        #expect(issued.status == 200)
        #expect(issued.headers["Cache-Control"] == "no-store")
        let json = try JSONParser().parse(issued.body)
        #expect(json["token_type"] == "Bearer")
        #expect(json["expires_in"]?.int == 3600)
        #expect(json["scope"] == "records:read")
        let token = try #require(json["access_token"]?.string)
        func records(_ token: String?, at time: Date) throws -> SandboxResponse {
            let headers: HTTPHeaders = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
            var later = context
            later.now = time
            return try #require(sandbox.sandboxResponse(for: SandboxRequest(method: "GET", path: "/records", headers: headers), context: later))
        }
        #expect(try records(token, at: now.addingTimeInterval(3599)).status == 200)
        let expired = try records(token, at: now.addingTimeInterval(3600))
        #expect(expired.status == 401)
        #expect(try JSONParser().parse(expired.body)["error"]?["message"] == "the access token has expired", "the definition's error shape")
        #expect(try records(token + "x", at: now).status == 401)
        #expect(try records(nil, at: now).status == 401)
        let wrong = "Basic " + Data("sandbox-vault-client-id:nope".utf8).base64EncodedString()
        let refused = try #require(sandbox.sandboxResponse(for: SandboxRequest(method: "POST", path: "/oauth/token", headers: ["Authorization": wrong], body: body), context: context))
        #expect(refused.status == 401)
        #expect(try JSONParser().parse(refused.body)["error"] == "invalid_client")
        let grant = try #require(sandbox.sandboxResponse(for: SandboxRequest(method: "POST", path: "/oauth/token", headers: ["Authorization": basic], body: Data("grant_type=password".utf8)), context: context))
        #expect(grant.status == 400)
        #expect(try JSONParser().parse(grant.body)["error"] == "unsupported_grant_type")
    }

    @Test func theSectionAndItsCredentialsAreCheckedTogether() throws {
        let text = try String(contentsOf: Self.definition, encoding: .utf8)
        let noSection = text.replacingOccurrences(of: "\"oauth2\": {", with: "\"x-oauth2\": {")
        #expect(throws: DefinitionProblem.self) { try ProviderDefinition(json: Data(noSection.utf8)) }
        do {
            _ = try ProviderDefinition(json: Data(text.replacingOccurrences(of: "\"oauth2-client-secret\"", with: "\"bearer\"").utf8))
            Issue.record("a grant without a secret was accepted")
        } catch {
            #expect(error.description == "/oauth2: needs exactly one 'auth' entry with \"in\": \"oauth2-client-secret\" (found 0)")
        }
        let definition = try ProviderDefinition(json: Data(contentsOf: Self.definition))
        #expect(definition.oauth2?.grant == ClientCredentialsGrant(
            tokenURL: "/oauth/token", clientIDVariable: "VAULT_CLIENT_ID", clientSecretVariable: "VAULT_CLIENT_SECRET", scope: "records:read"))
        #expect(definition.descriptor.auth.map(\.name) == ["VAULT_CLIENT_ID", "VAULT_CLIENT_SECRET"])
        #expect(definition.descriptor.auth.allSatisfy { $0.placement == nil }, "neither is ever sent to the API")
        #expect(definition.descriptor.authStyle == "OAuth2 client credentials (token from /oauth/token)")
    }

    // MARK: Through the binary

    /// Every regular file under `folders`, with its contents.
    static func filesWritten(under folders: [URL]) -> [(path: String, data: Data)] {
        folders.flatMap { folder -> [(String, Data)] in
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
            return walker.compactMap { entry -> (String, Data)? in
                guard let url = entry as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                      let data = FileManager.default.contents(atPath: url.path)
                else { return nil }
                return (url.path, data)
            }
        }
    }

    @Test func theBinaryKeepsTheTokenInOne0600FileAndTheSecretAndTokenNowhereElse() throws {
        let server = try TokenServer()
        let home = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let cassette = home.appendingPathComponent("cassette")
        var environment = Self.environment
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        let file = ["--provider-file", Self.definition.path]
        let first = try Binary.run(file + ["vault", "records", "--base-url", server.baseURL, "--verbose", "--format", "json"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("vault: → POST \(server.baseURL)/oauth/token"), "--verbose shows the token request, not its answer")
        let second = try Binary.run(
            file + ["vault", "records", "--base-url", server.baseURL, "--verbose", "--no-cache", "--record", cassette.path], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stderr.contains("oauth/token"), "the kept token is reused")
        #expect(server.settled({ server.tokenRequests }, 1) == 1)
        let tokens = home.appendingPathComponent("data/aggregate/tokens")
        let kept = Self.cacheFiles(tokens)
        try #require(kept.count == 1)
        #expect((try FileManager.default.attributesOfItem(atPath: kept[0].path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let token = try #require(try JSONParser().parse(Data(contentsOf: kept[0]))["accessToken"]?.string)
        // A replay needs neither the secret nor a token: the cassette answers.
        let replay = try Binary.run(
            file + ["vault", "records", "--base-url", server.baseURL, "--replay", cassette.path],
            environment: environment.filter { !$0.key.hasPrefix("VAULT_") })
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("Third record"))
        #expect(server.settled({ server.tokenRequests }, 1) == 1)
        // Offline: the in-process emulator's token, kept nowhere.
        let offline = try Binary.run(file + ["vault", "records", "--offline"], environment: environment)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(Self.cacheFiles(tokens).count == 1)
        let written = Self.filesWritten(under: [home])
        #expect(written.contains { $0.path.hasSuffix("cassette.json") })
        #expect(written.contains { $0.path.contains("/cache/") }, "the HTTP cache wrote entries")
        for (path, data) in written {
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains(Self.secret), "\(path) holds the client secret")
            #expect(!text.contains(Data(Self.secret.utf8).base64EncodedString()), "\(path) holds the Basic credentials")
            if path != kept[0].path { #expect(!text.contains(token), "\(path) holds the token") }
        }
        for output in [first, second, replay, offline] {
            #expect(!(output.stdout + output.stderr).contains(Self.secret))
            #expect(!(output.stdout + output.stderr).contains(token))
        }
    }

    @Test func theSandboxsTokenLifetimeIsAWholeNumberOfSeconds() throws {
        let bad = try Binary.run(["--provider-file", Self.definition.path, "sandbox", "--port", "0", "--token-lifetime", "soon"])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: --token-lifetime must be a whole number of seconds from 0 to 31536000, not 'soon'\n"))
        let help = try Binary.run(["sandbox", "--help"])
        #expect(help.stdout.contains("--token-lifetime"))
    }

    @Test func theBinarysTokenErrorsAreOneLine() throws {
        let server = try TokenServer()
        let home = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = Self.environment
        environment["XDG_DATA_HOME"] = home.path
        environment["VAULT_CLIENT_SECRET"] = "wrong-secret-91c3"
        let refused = try Binary.run(["--provider-file", Self.definition.path, "vault", "records", "--base-url", server.baseURL], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr == "Error: vault: the token endpoint \(server.baseURL)/oauth/token rejected the client (invalid_client), HTTP 401: check VAULT_CLIENT_ID and VAULT_CLIENT_SECRET\n")
        let json = try Binary.run(
            ["--provider-file", Self.definition.path, "vault", "records", "--base-url", server.baseURL, "--format", "json"], environment: environment)
        #expect(try JSONParser().parse(Data(json.stdout.utf8))["results"]?[0]?["error"]?["kind"] == "auth")
        #expect(!(json.stdout + json.stderr + refused.stderr).contains("wrong-secret-91c3"))
    }
}
