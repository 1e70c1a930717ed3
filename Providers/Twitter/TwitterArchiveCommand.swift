public import AggregateCore
import AggregateJSON
import AggregateRendering
import AggregateText
import Foundation

extension TwitterProvider: LocalCommandProvider {
    /// `aggregate twitter archive`.
    public static var localCommands: [LocalCommand] { [TwitterArchiveCommand.command] }
}

/// `aggregate twitter archive <PATH>`: the user's own tweets from an X/Twitter data export (the folder, its
/// `data/` folder, one tweet file, or the `.zip` through `unzip` or `bsdtar`).
enum TwitterArchiveCommand {
    static let options: [OptionSpec] = [
        OptionSpec("since", valueName: "DATE", help: "Only tweets from this day on (YYYY-MM-DD, UTC) or this moment (ISO 8601)."),
        OptionSpec("until", valueName: "DATE", help: "Only tweets before this day (YYYY-MM-DD, UTC) or moment (ISO 8601)."),
        OptionSpec("exclude", valueName: "KINDS", help: "Leave out replies and/or retweets: replies, retweets or replies,retweets."),
        OptionSpec("limit", valueName: "N", help: "The newest N tweets only (default: all)."),
    ]

    static let command = LocalCommand(
        name: "archive", summary: "Your own tweets from an X/Twitter data export (\"Download an archive of your data\").",
        usage: "aggregate twitter archive <path> [--since <DATE>] [--until <DATE>] [--exclude <KINDS>] [--limit <N>] [--format <FORMAT>]",
        arguments: [
            ("<path>", "The export: its folder, its data/ folder, one tweets.js, tweet.js or tweets-partN.js, or the .zip (needs unzip or bsdtar)."),
        ],
        options: options,
        discussion: """
            Reads every era of the export: data/tweets.js and its tweets-partN.js parts (late 2022 on), data/tweet.js (2020-2022), a root-level tweet.js (2018-2019) and the Grailbird months data/js/tweets/YYYY_MM.js (2012-2019). Of an edited tweet only the last version is shown; posts longer than 280 characters get their whole text from note-tweet.js. Retweets are told by their 'RT @' text.

            Tweets come newest first. With --format ndjson and no --limit they are written as they are read, in the archive's own order, so an archive of any size needs little memory; --limit N keeps only the newest N while reading.

            Exit codes: 0 success; 1 the path holds no tweet files, or is a .zip and neither unzip nor bsdtar is installed; 64 usage error; 65 a data file is not valid (its path, line and column are named); 66 the path or a file in it does not exist or cannot be opened; 74 reading a file failed.

            Example: aggregate twitter archive ~/Downloads/twitter-2024-11-16-0a1b2c.zip --since 2024-01-01 --exclude retweets --format csv
            """,
        run: run)

    static func run(_ context: LocalCommandContext) async throws(AggregateError) -> LocalCommandOutcome {
        let parsed = context.arguments
        guard let path = parsed.positionals.first else {
            throw AggregateError(.usage, "missing <path>: give the export's folder, its data/ folder, a tweets.js file or the .zip")
        }
        if parsed.positionals.count > 1 { throw AggregateError(.usage, "unexpected argument '\(parsed.positionals[1])': give one archive") }
        var filter = TwitterArchive.Filter()
        filter.since = try parsed.value("since").map { text throws(AggregateError) in try date(text, option: "since") }
        filter.until = try parsed.value("until").map { text throws(AggregateError) in try date(text, option: "until") }
        for kind in (parsed.value("exclude") ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            switch kind {
            case "replies": filter.excludeReplies = true
            case "retweets": filter.excludeRetweets = true
            default: throw AggregateError(.usage, "--exclude takes replies, retweets or both (replies,retweets), not '\(kind)'")
            }
        }
        let format = try parsed.value("format").map { text throws(AggregateError) in try OutputFormat(option: text) } ?? .text
        var limit: Int?
        if let text = parsed.value("limit") {
            guard let value = Int(text), value >= 1 else { throw AggregateError(.usage, "--limit must be a whole number of at least 1, not '\(text)'") }
            limit = value
        }
        let archive = try ArchiveSource.open(path)
        var layout = TwitterArchive.layout(of: archive.paths)
        // The manifest's list of parts is the authority when it names files that are there.
        if archive.singleFile == nil, let manifest = layout.manifest,
            let listed = try TwitterArchive.manifestTweetFiles(in: archive.entry(manifest), paths: archive.paths)
        {
            layout.tweets = listed
        }
        // A data file named on the command line is read whatever its name.
        if let file = archive.singleFile { layout.tweets = [file] }
        guard !layout.tweets.isEmpty else {
            throw AggregateError(.notFound, "\(path): no tweet files found (looked for data/tweets.js, data/tweet.js, tweet.js and data/js/tweets/YYYY_MM.js)")
        }
        let username = try layout.account.flatMap { account throws(AggregateError) in try TwitterArchive.username(in: archive.entry(account)) }
        let notes = try layout.notes.map { notes throws(AggregateError) in try TwitterArchive.notes(in: archive.entry(notes)) } ?? TwitterArchive.LongPosts()
        let streaming = format == .ndjson && limit == nil
        var kept = NewestTweets(limit: limit)
        let writer = JSONWriter()
        var batch: [UInt8] = []
        batch.reserveCapacity(1 << 16 + 4096)
        // A large archive takes a while: on a terminal, one line says which file and how many tweets so far.
        // Not while tweets stream onto the same terminal: the two would overwrite each other.
        let progress = context.progress(streaming && context.outputIsTerminal)
        defer { progress.finish() }
        var read = 0
        for (index, file) in layout.tweets.enumerated() {
            progress.update(phase: "reading file \(index + 1) of \(layout.tweets.count)")
            try TwitterArchive.readTweets(archive.entry(file), username: username, notes: notes, filter: filter) { item in
                read += 1
                progress.update(items: read)
                guard streaming else { return kept.add(item) }
                writer.append(item.jsonValue, to: &batch)
                batch.append(0x0A)
                if batch.count >= 1 << 16 {
                    batch.withUnsafeBytes { context.writeBytes($0) }
                    batch.removeAll(keepingCapacity: true)
                }
            }
        }
        // Cleared before the results, which share the terminal with it.
        progress.finish()
        if streaming {
            batch.withUnsafeBytes { context.writeBytes($0) }
            return .written
        }
        return .result(ProviderResult(
            provider: "twitter", operation: "archive", query: query(path: path, parsed: parsed), items: kept.newestFirst(),
            meta: ResultMeta(source: .offline, pages: layout.tweets.count), explicitLimit: limit))
    }

    /// `2024-01-31` (midnight UTC) or an ISO 8601 moment.
    static func date(_ text: String, option: String) throws(AggregateError) -> Date {
        if text.count == 10, let day = TwitterArchive.parseDate(text + "T00:00:00Z") { return day }
        if let moment = TwitterArchive.parseDate(text) { return moment }
        throw AggregateError(.usage, "--\(option) must be a date such as 2024-01-31 or 2024-01-31T18:00:00Z, not '\(text)'")
    }

    private static func query(path: String, parsed: ParsedArguments) -> JSONObject {
        var query = JSONObject()
        query["path"] = .string(path)
        for name in ["since", "until", "exclude"] { query.set(name, parsed.value(name).map(JSONValue.string)) }
        return query
    }
}

/// The newest tweets seen (by id, which grows with time), at most `limit` of them, or all without a limit.
struct NewestTweets {
    let limit: Int?
    private var items: [Item] = []

    init(limit: Int?) { self.limit = limit }

    mutating func add(_ item: Item) {
        items.append(item)
        // Trimming in batches keeps adding amortized O(log n) while memory stays within twice the limit.
        if let limit, items.count >= max(2 * limit, 1024) { items = Array(sorted().prefix(limit)) }
    }

    func newestFirst() -> [Item] {
        let all = sorted()
        return limit.map { Array(all.prefix($0)) } ?? all
    }

    private func sorted() -> [Item] {
        // Ids are compared as integers: pre-2010 ids are shorter than today's.
        items.sorted { (UInt64($0.id) ?? 0, $0.id) > (UInt64($1.id) ?? 0, $1.id) }
    }
}

/// An archive on disk: a folder, a single data file, or a ZIP read through `unzip` or `bsdtar`.
struct ArchiveSource {
    var paths: [String]
    /// The data file, when the path is one rather than a folder or a ZIP.
    var singleFile: String?
    private var opener: @Sendable (String) -> TwitterArchive.Entry

    func entry(_ path: String) -> TwitterArchive.Entry { opener(path) }

    static func open(_ path: String) throws(AggregateError) -> ArchiveSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AggregateError(.noInput, "\(path): no such file or folder")
        }
        if isDirectory.boolValue { return folder(URL(fileURLWithPath: path)) }
        if path.lowercased().hasSuffix(".zip") { return try zip(path) }
        // One data file: its folder may hold account.js and note-tweet.js too.
        let url = URL(fileURLWithPath: path)
        let siblings = ["account.js", "note-tweet.js"].map { url.deletingLastPathComponent().appendingPathComponent($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        return ArchiveSource(paths: [path] + siblings, singleFile: path, opener: fileEntry)
    }

    private static func folder(_ root: URL) -> ArchiveSource {
        var paths: [String] = []
        let skipped: Set<String> = ["tweets_media", "tweet_media", "assets", "direct_messages_media", "community_tweet_media", "profile_media"]
        if let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) {
            for case let url as URL in walker {
                if skipped.contains(url.lastPathComponent) {
                    walker.skipDescendants()
                    continue
                }
                if url.pathExtension == "js" { paths.append(url.path) }
            }
        }
        return ArchiveSource(paths: paths, singleFile: nil, opener: fileEntry)
    }

    private static let fileEntry: @Sendable (String) -> TwitterArchive.Entry = { path in
        TwitterArchive.Entry(path: path) { () throws(AggregateError) -> FileHandle in
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw AggregateError(.noInput, "\(path): cannot be opened (\(FileSystemReason.describe(errno: errno)))")
            }
            return handle
        }
    }

    private static func zip(_ path: String) throws(AggregateError) -> ArchiveSource {
        let tool: (list: [String], extract: @Sendable (String) -> [String], name: String)
        if let unzip = executable("unzip") {
            tool = ([unzip, "-Z1", path], { [unzip, "-p", path, $0] }, "unzip")
        } else if let bsdtar = executable("bsdtar") {
            tool = ([bsdtar, "-tf", path], { [bsdtar, "-xOf", path, $0] }, "bsdtar")
        } else {
            throw AggregateError(.notFound, "\(path): reading a .zip needs unzip or bsdtar (e.g. apt-get install unzip), or extract it first and give the folder")
        }
        let listing = try output(of: tool.list, name: tool.name, path: path)
        let paths = String(decoding: listing.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.hasSuffix(".js") }
        guard !paths.isEmpty else { throw AggregateError(.invalidInput, "\(path): \(tool.name) lists no .js files in it (is it an X/Twitter archive?)") }
        let extract = tool.extract
        let name = tool.name
        return ArchiveSource(paths: paths, singleFile: nil) { entry in
            TwitterArchive.Entry(path: "\(path):\(entry)") { () throws(AggregateError) -> FileHandle in
                try output(of: extract(entry), name: name, path: path)
            }
        }
    }

    /// Starts `command` and returns its standard output to read from.
    private static func output(of command: [String], name: String, path: String) throws(AggregateError) -> FileHandle {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // No child processes here: an app reads an extracted folder instead.
        throw AggregateError(.notFound, "\(path): reading a .zip needs \(name), which cannot run on this platform; extract it first and give the folder")
        #else
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw AggregateError(.notFound, "\(path): \(name) could not be started (\(FileSystemReason.describe(error)))")
        }
        return pipe.fileHandleForReading
        #endif
    }

    private static func executable(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
