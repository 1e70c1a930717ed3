import AggregateCore
import AggregateSandbox
import Foundation
import Testing

@Suite("SandboxFault.parse")
struct SandboxFaultParsingTests {
    @Test("the documented examples parse into what they say", arguments: [
        ("status=503; retry-after=2", SandboxFault(status: 503, retryAfter: 2)),
        ("delay=3s", SandboxFault(delay: 3)),
        ("delay=500ms", SandboxFault(delay: 0.5)),
        ("delay=1.5s", SandboxFault(delay: 1.5)),
        ("truncate", SandboxFault(truncate: true)),
        ("malformed", SandboxFault(body: .malformed)),
        ("html", SandboxFault(body: .html)),
        ("html; status=502", SandboxFault(status: 502, body: .html)),
        ("size=40MiB", SandboxFault(body: .size(40 << 20))),
        ("size=512KiB", SandboxFault(body: .size(512 << 10))),
        ("size=2MB", SandboxFault(body: .size(2_000_000))),
        ("size=1000", SandboxFault(body: .size(1000))),
        ("close", SandboxFault(body: .close)),
        ("status=429", SandboxFault(status: 429)),
        ("status=429; retry-after=1; times=1", SandboxFault(status: 429, retryAfter: 1, times: 1)),
        ("status=503; path=/2/groups", SandboxFault(status: 503, path: "/2/groups")),
        ("status=500; method=post", SandboxFault(status: 500, method: "POST")),
        ("  STATUS = 503 ;; Retry-After=0 ; ", SandboxFault(status: 503, retryAfter: 0)),
        ("size=1MiB; truncate; delay=200ms", SandboxFault(delay: 0.2, body: .size(1 << 20), truncate: true)),
    ])
    func valid(_ spec: String, _ expected: SandboxFault) throws {
        #expect(try SandboxFault.parse(spec) == expected)
    }

    @Test("description is canonical and parses back to the same fault", arguments: [
        "status=503; retry-after=2", "delay=500ms", "delay=3s", "size=41943040; truncate", "close; times=2; path=/x; method=GET",
        "html; status=502",
    ])
    func roundTrip(_ spec: String) throws {
        let fault = try SandboxFault.parse(spec)
        #expect(try SandboxFault.parse(fault.description) == fault)
    }

    @Test("bad specs are usage errors naming the problem", arguments: [
        ("", "empty"),
        ("explode", "unknown item 'explode'"),
        ("status", "needs a value"),
        ("status=abc", "status must be"),
        ("status=99", "status must be"),
        ("status=503; status=500", "given twice"),
        ("retry-after=-1", "retry-after must be"),
        ("delay=soon", "delay must look like"),
        ("delay=-1s", "delay must look like"),
        ("size=lots", "size must look like"),
        ("size=1", "size must be from"),
        ("size=2GiB", "size must be from"),
        ("html; malformed", "cannot be combined"),
        ("close; status=500", "'close' sends no response"),
        ("truncate=yes", "takes no value"),
        ("times=0; status=500", "times must be"),
        ("path=groups; status=500", "path must start with '/'"),
        ("method=G-T; status=500", "method must be"),
        ("times=2; path=/x", "injects nothing"),
    ])
    func invalid(_ spec: String, _ fragment: String) {
        do {
            _ = try SandboxFault.parse(spec)
            Issue.record("'\(spec)' should not parse")
        } catch let error as AggregateError {
            #expect(error.kind == .usage)
            #expect(error.message.contains(fragment), "\(error.message)")
            #expect(error.message.contains("docs/sandbox-faults.md"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("scoping matches method and path prefix")
    func applies() throws {
        let fault = try SandboxFault.parse("status=503; path=/meetup/2/groups; method=GET")
        #expect(fault.applies(method: "GET", path: "/meetup/2/groups"))
        #expect(fault.applies(method: "get", path: "/meetup/2/groups/123"))
        #expect(!fault.applies(method: "POST", path: "/meetup/2/groups"))
        #expect(!fault.applies(method: "GET", path: "/2/groups"))
    }
}
