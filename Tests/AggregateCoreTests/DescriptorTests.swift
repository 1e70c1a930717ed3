import AggregateCore
import AggregateJSON
import Foundation
import Testing

@Suite struct ParameterValueTests {
    @Test func convertsTypedValues() throws {
        #expect(try Parameter("lat", type: .number(-90...90), help: "").value(from: "51.509980") == .number("51.509980"))
        #expect(try Parameter("n", type: .integer(1...5), help: "").value(from: "3") == .int(3))
        #expect(try Parameter("api", type: .choice(["v2", "graphql"]), help: "").value(from: "GraphQL") == "graphql")
        #expect(try Parameter("x", type: .choiceList(["replies", "retweets"]), help: "").value(from: "retweets, replies,retweets")
            == ["retweets", "replies"])
    }

    @Test(arguments: [
        (Parameter("lat", type: .number(-90...90), help: ""), "91", "--lat must be between -90 and 90, not 91"),
        (Parameter("lat", type: .number(nil), help: ""), "north", "--lat must be a decimal number, not 'north'"),
        (Parameter("n", type: .integer(nil), help: ""), "1.5", "--n must be a whole number, not '1.5'"),
        (Parameter("name", help: ""), "   ", "--name must not be empty"),
        (Parameter("user", style: .positional, help: ""), "", "<user> must not be empty"),
        (Parameter("api", type: .choice(["v2"]), help: ""), "v3", "--api must be one of v2, not 'v3'"),
    ])
    func rejectsBadValuesAsUsageErrors(parameter: Parameter, text: String, message: String) {
        #expect(throws: AggregateError(.usage, message)) { try parameter.value(from: text) }
    }
}

@Suite struct BaseURLTests {
    let descriptor = ProviderDescriptor(
        name: "demo", displayName: "Demo", summary: "", docsURL: "", defaultBaseURL: "https://api.example.com",
        baseURLVariables: ["DEMO_URL"], auth: [], authStyle: "", paginationStyle: "", operations: [ProviderOperation(name: "list", summary: "", itemKind: "x")],
        examples: [])

    @Test func prefersTheOptionThenTheVariablesThenTheDefault() throws {
        #expect(try descriptor.baseURL(override: "http://127.0.0.1:8787", environment: ["AGGREGATE_DEMO_BASE_URL": "https://a.example"]).absoluteString == "http://127.0.0.1:8787")
        #expect(try descriptor.baseURL(override: nil, environment: ["AGGREGATE_DEMO_BASE_URL": "https://a.example", "DEMO_URL": "https://b.example"]).absoluteString == "https://a.example")
        #expect(try descriptor.baseURL(override: nil, environment: ["DEMO_URL": "http://localhost:3000"]).absoluteString == "http://localhost:3000")
        #expect(try descriptor.baseURL(override: nil, environment: [:]).absoluteString == "https://api.example.com")
    }

    @Test func allowsPlainHTTPOnlyForLoopback() {
        #expect(throws: AggregateError.self) { try descriptor.baseURL(override: "http://example.com", environment: [:]) }
        #expect(throws: AggregateError.self) { try descriptor.baseURL(override: "ftp://127.0.0.1", environment: [:]) }
        #expect(throws: AggregateError.self) { try descriptor.baseURL(override: "not a url", environment: [:]) }
        #expect((try? descriptor.baseURL(override: "http://[::1]:9000", environment: [:])) != nil)
        #expect((try? descriptor.baseURL(override: "http://127.1.2.3", environment: [:])) != nil)
    }

    @Test func missingURLIsAConfigurationErrorNamingTheVariables() {
        var noDefault = descriptor
        noDefault.defaultBaseURL = nil
        do {
            _ = try noDefault.baseURL(override: nil, environment: [:])
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .config)
            #expect(error.message.contains("DEMO_URL"))
            #expect(error.message.contains("--offline"))
        }
    }
}

@Suite struct ExitCodeTests {
    @Test func mapsEveryErrorKind() {
        #expect(ExitCode(for: AggregateError(.usage, "")) == .usage)
        #expect(ExitCode(for: AggregateError(.config, "")) == .config)
        #expect(ExitCode(for: AggregateError(.invalidInput, "")) == .dataError)
        for kind in [AggregateError.Kind.auth, .notFound, .rateLimited, .http, .network, .timeout, .decoding, .tooLarge] {
            #expect(ExitCode(for: AggregateError(kind, "")) == .failure)
        }
    }

    @Test func combinesResults() {
        let ok = ProviderResult(provider: "a", operation: "x", meta: ResultMeta(source: .offline))
        var failed = ok
        failed.error = AggregateError(.http, "boom")
        var unconfigured = ok
        unconfigured.error = AggregateError(.config, "no key")
        #expect(ExitCode(for: [ok, ok]) == .success)
        #expect(ExitCode(for: [ok, failed]) == .partial)
        #expect(ExitCode(for: [failed, failed]) == .failure)
        #expect(ExitCode(for: [unconfigured]) == .config)
    }
}
