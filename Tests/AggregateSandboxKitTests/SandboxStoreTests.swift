import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import Foundation
import Testing

/// The sandbox's persistent documents: atomic, locked across store instances, and never overwriting a corrupt file.
@Suite struct SandboxStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-store-\(UUID().uuidString)")

    private func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func updateCreatesTheDirectoryAndLeavesOnlyTheDocumentAndItsLock() throws {
        let store = SandboxStore(directory: directory)
        #expect(try store.read("counter.json") == nil)
        let value = try store.update("counter.json") { document -> Int in
            document = ["count": 1]
            return 1
        }
        #expect(value == 1)
        #expect(try store.read("counter.json") == ["count": 1])
        #expect(files() == [".counter.json.lock", "counter.json"], "no temporary file is left behind")
    }

    @Test func aThrowingUpdateWritesNothing() throws {
        let store = SandboxStore(directory: directory)
        try store.update("doc.json") { $0 = ["v": 1] }
        struct Refused: Error {}
        #expect(throws: Refused.self) { try store.update("doc.json") { document in document = ["v": 2]; throw Refused() } }
        #expect(try store.read("doc.json") == ["v": 1])
    }

    @Test func aCorruptDocumentIsReportedAndNeverOverwritten() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("doc.json")
        let corrupt = Data("{\"half\": [1, 2".utf8)
        try corrupt.write(to: file)
        let store = SandboxStore(directory: directory)
        var called = false
        do {
            try store.update("doc.json") { document in
                called = true
                document = []
            }
            Issue.record("the update should have thrown")
        } catch let error as AggregateError {
            #expect(error.kind == .decoding)
            #expect(error.message.contains("\(file.path) is corrupt"))
            #expect(error.message.hasSuffix("it was left untouched: repair or remove it"))
        }
        #expect(!called, "the change never sees a corrupt document")
        #expect(throws: AggregateError.self) { try store.read("doc.json") }
        #expect(try Data(contentsOf: file) == corrupt)
    }

    @Test func temporaryFilesOfADeadWriterAreRemovedOnTheNextUpdate() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{\"partial".utf8).write(to: directory.appendingPathComponent(".doc.json.0B1E5C1A.tmp"))
        try Data("[]".utf8).write(to: directory.appendingPathComponent(".other.json.0B1E5C1A.tmp"))
        let store = SandboxStore(directory: directory)
        try store.update("doc.json") { $0 = [1] }
        #expect(files() == [".doc.json.lock", ".other.json.0B1E5C1A.tmp", "doc.json"], "only this document's leftovers are removed")
    }

    /// Separate store instances share no in-process lock: only the file lock keeps their updates apart, as it
    /// does between the `aggregate sandbox` process and an `--offline` run.
    @Test func concurrentUpdatesThroughSeparateStoresLoseNothing() async throws {
        let stores = (0..<4).map { _ in SandboxStore(directory: directory) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores {
                group.addTask {
                    for _ in 0..<25 {
                        try store.update("counter.json") { document in
                            let count = document?["count"]?.int ?? 0
                            document = ["count": .int(count + 1)]
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try SandboxStore(directory: directory).read("counter.json") == ["count": 100])
    }
}
