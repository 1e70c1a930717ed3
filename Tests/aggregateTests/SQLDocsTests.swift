import AggregateCore
import AggregateSQL
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// Keeps docs/sql.md true: every example in it is run through the built binary and its standard output compared,
/// exactly, with what the page shows.
///
/// The convention the page follows (and says at its top):
///
/// - An example is a fenced block opened with ```` ```console ````.
/// - In it, a line starting with `$ ` is a command; the lines after it, up to the next `$ ` line or the end of the
///   block, are its standard output, exactly (standard error, where the notes go, is not shown or compared).
/// - A command is `aggregate sql ...`, always with `--offline`, or `sqlite3 FILE "..."` to make a file for `--db`
///   (blocks with one are checked only where sqlite3 is installed). Words are split as a POSIX shell splits them for
///   single and double quotes (`ShellWords`); there are no variables, pipes or redirections.
/// - A command must exit 0, unless it ends with `; echo "exit $?"`: then its output ends with the line `exit N`.
/// - CSV's lines end with CRLF (RFC 4180); the page shows them as lines, so a CRLF is compared as a line end.
/// - Each block runs in a new empty folder (a file one command makes is there for the next), and each command with a
///   new cache and config folder and no `COLUMNS`, so text is 80 columns wide, as in a pipe.
@Suite struct SQLDocsTests {
    static let page = TestPaths.packageRoot.appendingPathComponent("docs/sql.md")
    static let sqlite3 = OptionalTool(name: "sqlite3", install: "apt-get install sqlite3")
    static let exitSuffix = "; echo \"exit $?\""

    struct Command {
        var line: Int
        var text: String
        var expected: String
    }

    struct Block {
        var line: Int
        var commands: [Command]
        var needsSQLite3: Bool { commands.contains { $0.text.hasPrefix("sqlite3 ") } }
    }

    /// The page's console blocks, with their commands and expected outputs.
    static func blocks() throws -> [Block] {
        let lines = try String(contentsOf: page, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [Block] = []
        var current: Block?
        for (index, line) in lines.enumerated() {
            if current == nil {
                if line == "```console" { current = Block(line: index + 1, commands: []) }
                continue
            }
            if line.hasPrefix("```") {
                if let block = current { blocks.append(block) }
                current = nil
            } else if line.hasPrefix("$ ") {
                current?.commands.append(Command(line: index + 1, text: String(line.dropFirst(2)), expected: ""))
            } else if let last = current?.commands.indices.last {
                current?.commands[last].expected += line + "\n"
            }
        }
        return blocks
    }

    /// The command's words, without the `; echo "exit $?"` that shows its status.
    static func words(_ command: Command) throws -> [String] {
        try ShellWords.split(command.text.hasSuffix(exitSuffix) ? String(command.text.dropLast(exitSuffix.count)) : command.text)
    }

    /// Runs one command in `folder`; returns its exit status and standard output.
    static func run(_ command: Command, in folder: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        let echoesStatus = command.text.hasSuffix(exitSuffix)
        let words = try words(command)
        let process = Process()
        switch words.first {
        case "aggregate":
            process.executableURL = Binary.url
        case "sqlite3":
            process.executableURL = URL(fileURLWithPath: try #require(sqlite3.path, "sqlite3 is not installed"))
        default:
            Issue.record("docs/sql.md:\(command.line): a command is aggregate sql ... or sqlite3 ..., not '\(command.text)'")
            return (-1, "", "")
        }
        process.arguments = Array(words.dropFirst())
        process.currentDirectoryURL = folder
        let temporary = FileManager.default.temporaryDirectory
        process.environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "XDG_CONFIG_HOME": temporary.appendingPathComponent("aggregate-docs-config-\(UUID().uuidString)").path,
            "XDG_CACHE_HOME": temporary.appendingPathComponent("aggregate-docs-cache-\(UUID().uuidString)").path,
            "XDG_DATA_HOME": temporary.appendingPathComponent("aggregate-docs-data-\(UUID().uuidString)").path,
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = try Binary.collect(process, out: out, err: err, timeout: 60, arguments: words)
        let stdout = output.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        return (output.status, stdout + (echoesStatus ? "exit \(output.status)\n" : ""), output.stderr)
    }

    /// Runs every command of `blocks` and compares its output with the page's.
    static func check(_ blocks: [Block]) throws {
        for block in blocks {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-docs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            for command in block.commands {
                let location = "docs/sql.md:\(command.line)"
                let words = try words(command)
                if words.first == "aggregate" {
                    #expect(words.dropFirst().first == "sql", "\(location): only aggregate sql examples are run here")
                    #expect(words.contains("--offline"), "\(location): an example runs offline")
                }
                let result = try run(command, in: folder)
                if !command.text.hasSuffix(exitSuffix) {
                    #expect(result.status == 0, "\(location): exit \(result.status): \(result.stderr)")
                }
                #expect(result.stdout == command.expected, "\(location): the page shows\n\(command.expected)\nbut the command prints\n\(result.stdout)")
            }
        }
    }

    @Test func thePageHasExamplesOfEveryKind() throws {
        let commands = try Self.blocks().flatMap(\.commands).map(\.text)
        #expect(commands.count >= 12, "at least a dozen worked queries")
        for part in ["JOIN", "GROUP BY", "->>", "--plan", "--db", "--partial", "--format json", "--max-requests", " IN ("] {
            #expect(commands.contains { $0.contains(part) }, "an example with \(part)")
        }
    }

    /// The page's table of metric and key columns is what `SQLCatalog` (`--describe`) has, for every table.
    @Test func theColumnTableIsTheCatalogs() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let catalog = SQLCatalog(registry: try TestRegistry.builtIn().registry)
        func names(_ list: [String]) -> String { list.isEmpty ? "none" : list.map { "`\($0)`" }.joined(separator: ", ") }
        let itemColumns = Set(SQLColumn.itemColumns.map(\.name))
        for table in catalog.tables {
            let metrics = table.columns.map(\.name).filter { !itemColumns.contains($0) }
            let row = "| `\(table.name)` | \(names(metrics)) | \(names(table.keyColumns.filter(\.isRequired).map(\.name))) | \(names(table.keyColumns.filter { !$0.isRequired }.map(\.name))) |"
            #expect(text.contains("\n" + row + "\n"), "docs/sql.md lacks the row\n\(row)")
        }
        for column in SQLColumn.itemColumns {
            let type = column.type == .json ? "json" : column.type.rawValue.lowercased()
            #expect(text.contains("\n| `\(column.name)` | \(type) |"), "docs/sql.md lacks the item column \(column.name) (\(type))")
        }
    }

    @Test func theExamplesPrintWhatThePageShows() throws {
        try Self.check(try Self.blocks().filter { !$0.needsSQLite3 })
    }

    @Test(.requires(SQLDocsTests.sqlite3)) func theExamplesWithADatabaseFilePrintWhatThePageShows() throws {
        let blocks = try Self.blocks().filter(\.needsSQLite3)
        #expect(!blocks.isEmpty, "the page shows --db with a file made by sqlite3")
        try Self.check(blocks)
    }
}
