import AggregateCore
import Foundation
import Testing

/// The one writer of our temp-then-rename files: private temporaries from their creation, and abandoned ones (of a
/// killed writer) removed by the next write to the folder, while a live writer's and other programs' files stay.
@Suite struct FileReplacementTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-replace-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The pid of a process that has exited.
    static func goneProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }

    func make(_ name: String, age: TimeInterval = 0) throws {
        let url = folder.appendingPathComponent(name)
        try Data("{\"partial".utf8).write(to: url)
        if age > 0 {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
        }
    }

    @Test func theTemporaryIsPrivateAndNamedForItsWriterBeforeTheRename() throws {
        let target = folder.appendingPathComponent("config.json")
        let temporary = try FileReplacement.writeTemporary(Data("{}".utf8), beside: target)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: temporary.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let parts = temporary.lastPathComponent.split(separator: ".")
        #expect(temporary.lastPathComponent.hasPrefix(".config.json.\(getpid())."))
        #expect(parts.count == 5 && parts[3].count == 16 && parts[3].allSatisfy(\.isHexDigit) && parts[4] == "tmp", "\(parts)")
        #expect(!FileReplacement.isAbandoned(name: temporary.lastPathComponent, modified: Date()), "its writer is alive")
    }

    @Test func replacingWritesAPrivateFileAndRemovesWhatKilledWritersLeft() throws {
        let gone = try Self.goneProcessID()
        let abandoned = [
            ".config.json.\(gone).00000000deadbeef.tmp",  // the writer is gone
            ".config.json.\(gone).tmp",  // the config file's name before
            ".stats.json.\(UUID().uuidString).tmp",  // the cache's name before, old
        ]
        try make(abandoned[0])
        try make(abandoned[1])
        try make(abandoned[2], age: 1_200)
        try make(".entry.\(getpid()).0123456789abcdef.tmp", age: 1_200)  // alive, but no write takes 20 minutes
        let kept = [
            ".cassette.json.\(getpid()).0123456789abcdef.tmp",  // a live writer's, this process
            ".stats.json.\(UUID().uuidString).tmp",  // the old form, young: maybe a live writer's
            ".doc.json.0B1E5C1A.tmp", "notes.tmp", ".tmp", "..\(gone).tmp",  // not ours
        ]
        for name in kept { try make(name) }

        let target = folder.appendingPathComponent("config.json")
        try FileReplacement.replace(target, with: Data("{\"a\": 1}\n".utf8))
        #expect(try names() == (kept + ["config.json"]).sorted())
        #expect(try Data(contentsOf: target) == Data("{\"a\": 1}\n".utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int == 0o600)
    }

    @Test func aFailedReplacementLeavesNothingAndSaysWhy() throws {
        let target = folder.appendingPathComponent("missing/config.json")
        #expect(throws: FileFailure.self) { try FileReplacement.replace(target, with: Data("{}".utf8)) }
        do {
            try FileReplacement.replace(target, with: Data("{}".utf8))
        } catch {
            #expect(error.code == ENOENT)
            #expect(error.path.hasPrefix(folder.appendingPathComponent("missing/.config.json.").path))
        }
        // A target that is a folder: the rename fails, and the temporary goes.
        let busy = folder.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: busy.appendingPathComponent("inside"), withIntermediateDirectories: true)
        #expect(throws: FileFailure.self) { try FileReplacement.replace(busy, with: Data("{}".utf8)) }
        #expect(try names() == ["busy"])
    }

    @Test func theLockIsExclusiveBetweenHolders() throws {
        let path = folder.appendingPathComponent(".config.json.lock").path
        let held = try FileLock.acquire(path)
        let other = open(path, O_RDWR | O_CLOEXEC)
        defer { close(other) }
        #expect(flock(other, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK, "a second holder must wait")
        FileLock.release(held)
        #expect(flock(other, LOCK_EX | LOCK_NB) == 0)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }
}
