import AggregateCore
import Foundation
import Testing

/// A registry's deferred providers are made only when asked for by name (or all at once), once, and one that
/// cannot be made is broken (issue #24, start-up).
@Suite struct DeferredProviderTests {
    @Test func aDeferredProviderIsMadeOnlyWhenAskedForByName() throws {
        let made = MadeCounter()
        let pager = DeferredProvider(name: "pager") { made.add(); return .success(PagerProvider()) }
        let other = DeferredProvider(name: "other") { made.add(); return .failure(AggregateError(.config, "other.json: cannot be read")) }
        let registry = try ProviderRegistry(entries: [pager, other], origins: ["other": .builtInDefinition])
        #expect(registry.names == ["pager", "other"])
        #expect(made.value == 0)
        #expect(try registry.require("pager").descriptor.name == "pager")
        #expect(registry.hasMade("pager") && !registry.hasMade("other"))
        _ = registry.provider(named: "pager")
        #expect(made.value == 1)
        #expect(registry.providers.map(\.descriptor.name) == ["pager"])
        #expect(made.value == 2)
    }

    @Test func aDeferredProviderThatCannotBeMadeIsBroken() throws {
        let failing = DeferredProvider(name: "broken") { .failure(AggregateError(.config, "cannot be read")) }
        let registry = try ProviderRegistry(entries: [DeferredProvider(PagerProvider()), failing], origins: ["broken": .builtInDefinition])
        #expect(registry.provider(named: "broken") == nil)
        #expect(registry.brokenProvider(named: "broken")?.error.message == "cannot be read")
        #expect(registry.broken.map(\.name) == ["broken"])
        #expect(registry.broken.first?.origin == .builtInDefinition)
        #expect(throws: AggregateError.self) { try registry.require("broken") }
    }

    @Test func deferredNamesAreCheckedAsOthersAre() {
        #expect(throws: AggregateError.self) {
            try ProviderRegistry(entries: [DeferredProvider(name: "Upper") { .success(PagerProvider()) }])
        }
        #expect(throws: AggregateError.self) {
            try ProviderRegistry(entries: [DeferredProvider(PagerProvider()), DeferredProvider(name: "pager") { .success(PagerProvider()) }])
        }
    }
}

private final class MadeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
