public import AggregateCore
import AggregateJSON
import AggregateText
public import Foundation

/// Reads the tweets of an X/Twitter "Download an archive of your data" export, in every era: Grailbird monthly
/// files (2012–2019), the root-level `tweet.js` of 2018–2019 (bare objects), `data/tweet.js` with `{"tweet": …}`
/// wrappers (2020–2022) and `data/tweets.js` with `tweets-partN.js` parts (late 2022 on).
///
/// Each data file is JavaScript: one assignment (`window.YTD.tweets.part0 = `, `Grailbird.data.tweets_2012_01 = `)
/// followed by a JSON array. Everything through the first `=` is skipped and the array is read as a stream, one
/// tweet at a time, so memory does not grow with the file. Ids and counts that the JSON eras write as strings, and
/// the three date forms, are read as such.
public enum TwitterArchive {
    /// One data file of an archive, opened when it is read (a file, or an entry streamed out of a ZIP).
    public struct Entry: Sendable {
        /// The path inside the archive, e.g. `data/tweets-part1.js`.
        public var path: String
        /// Opens the file's bytes from their start.
        public var open: @Sendable () throws(AggregateError) -> FileHandle

        /// Creates an entry.
        public init(path: String, open: @escaping @Sendable () throws(AggregateError) -> FileHandle) {
            self.path = path
            self.open = open
        }
    }

    /// The files that hold the tweets, and the account and long-post files that complete them.
    public struct Layout: Sendable, Equatable {
        /// The tweet files, in part order.
        public var tweets: [String]
        /// `account.js`, which names the account (the JSON eras carry no user on each tweet).
        public var account: String?
        /// `note-tweet.js`, which holds the whole text of posts longer than 280 characters.
        public var notes: String?
        /// `manifest.js` (2020 on), which lists the data files; see ``manifestTweetFiles(in:paths:)``.
        public var manifest: String?
    }

    /// Which tweets to keep: those created in `since..<until`, without replies or retweets when they are excluded.
    public struct Filter: Sendable, Equatable {
        public var since: Date?
        public var until: Date?
        public var excludeReplies = false
        public var excludeRetweets = false

        /// Creates a filter that keeps everything.
        public init() {}

        func keeps(_ item: Item) -> Bool {
            if excludeReplies, item.extra["isReply"] == true { return false }
            if excludeRetweets, item.extra["isRetweet"] == true { return false }
            if let since, let date = item.createdAt, date < since { return false }
            if let until, let date = item.createdAt, date >= until { return false }
            return true
        }
    }

    /// Picks the tweet files among the paths of an archive (a folder's files or a ZIP's entries), by what is
    /// present: `tweets.js` and its parts, else `tweet.js` and its parts (in `data/` or at the root), else the
    /// Grailbird months `data/js/tweets/YYYY_MM.js`. An extra top folder (as ZIPs often have) does not matter.
    public static func layout(of paths: [String]) -> Layout {
        let names = paths.map { ($0, ($0 as NSString).lastPathComponent) }
        func parts(_ base: String) -> [String] {
            names.compactMap { path, name in partNumber(name, base).map { ($0, path) } }.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var tweets = parts("tweets")
        if tweets.isEmpty { tweets = parts("tweet") }
        if tweets.isEmpty {
            tweets = names.filter { path, name in
                path.contains("js/tweets/") && name.count == 10 && name.hasSuffix(".js") && name.dropLast(3).allSatisfy { $0.isNumber || $0 == "_" }
            }.map(\.0).sorted()
        }
        let account = names.first { $0.1 == "account.js" }?.0
        let notes = names.first { $0.1 == "note-tweet.js" }?.0
        let manifest = names.first { $0.1 == "manifest.js" }?.0
        return Layout(tweets: tweets, account: account, notes: notes, manifest: manifest)
    }

    /// The tweet files that `manifest.js` lists (`dataTypes.tweets.files[].fileName`, or `tweet` before the 2022
    /// rename), matched to `paths` by their ending; `nil` when it lists none or one of them is missing, so that the
    /// names found on disk are used instead.
    public static func manifestTweetFiles(in entry: Entry, paths: [String]) throws(AggregateError) -> [String]? {
        let manifest = try value(of: entry)
        let types = manifest["dataTypes"]
        guard let files = (types?["tweets"]?["files"] ?? types?["tweet"]?["files"])?.array, !files.isEmpty else { return nil }
        var found: [String] = []
        for file in files {
            guard let name = file["fileName"]?.nonEmptyString,
                let path = paths.first(where: { $0 == name || $0.hasSuffix("/" + name) })
            else { return nil }
            found.append(path)
        }
        return found
    }

    /// 0 for `base.js`, N for `base-partN.js`, `nil` for other names.
    private static func partNumber(_ name: String, _ base: String) -> Int? {
        if name == "\(base).js" { return 0 }
        guard name.hasPrefix("\(base)-part"), name.hasSuffix(".js") else { return nil }
        return Int(name.dropFirst(base.count + 5).dropLast(3))
    }

    /// The account's username from `account.js`, if it names one.
    public static func username(in entry: Entry) throws(AggregateError) -> String? {
        var username: String?
        try forEachElement(of: entry) { element in
            let account = element["account"] ?? element
            username = username ?? account["username"]?.nonEmptyString
        }
        return username
    }

    /// The long posts of `note-tweet.js`, keyed by their creation time to the second.
    public static func notes(in entry: Entry) throws(AggregateError) -> LongPosts {
        var posts = LongPosts()
        try forEachElement(of: entry) { element in
            let note = element["noteTweet"] ?? element
            guard let text = note["core"]?["text"]?.string, let created = note["createdAt"]?.string.flatMap(parseDate) else { return }
            posts.texts[Int(created.timeIntervalSince1970), default: []].append(text)
        }
        return posts
    }

    /// The whole texts of long posts, to replace the cut `full_text` of the tweets that show them.
    public struct LongPosts: Sendable {
        var texts: [Int: [String]] = [:]

        /// Creates an empty set.
        public init() {}

        /// The long text for a tweet created at `date` whose stored text is `text` (cut with `…` and a link).
        func text(for date: Date?, stored text: String) -> String? {
            guard let date, let candidates = texts[Int(date.timeIntervalSince1970)] else { return nil }
            let head = String(text.prefix { $0 != "…" }.prefix(40)).trimmingCharacters(in: .whitespaces)
            return candidates.first { PlainText.decodeEntities($0).hasPrefix(PlainText.decodeEntities(head)) || $0.hasPrefix(head) }
        }
    }

    /// Reads the tweets of `entry` in file order and hands each one that `filter` keeps to `body`.
    /// Of the versions of an edited tweet only the last is kept; long posts get their whole text from `notes`.
    public static func readTweets(
        _ entry: Entry, username: String?, notes: LongPosts = LongPosts(), filter: Filter = Filter(), body: (Item) -> Void
    ) throws(AggregateError) {
        try forEachElement(of: entry, selecting: tweetFields) { element in
            guard let item = item(element, username: username, notes: notes), filter.keeps(item) else { return }
            body(item)
        }
    }

    /// The members of an archive element that ``item(_:username:notes:)`` and ``TwitterV11/item(_:)`` read, at
    /// every level (the `tweet` wrapper, a retweet's `retweeted_status`): reading only these, with the rest of
    /// each tweet (`source`, entity `indices`, `display_text_range`, edit windows, …) skipped unread, is most of
    /// what makes a large archive quick. A field that the mapping starts to read must be added here; the archive
    /// tests compare the items with those of whole elements.
    static let tweetFields: JSONSelection = {
        let links = JSONSelection.Member.selection(JSONSelection(["url": .whole, "expanded_url": .whole]))
        let editIDs = JSONSelection(["editTweetIds": .whole])
        return JSONSelection([
            "tweet": .same, "retweeted_status": .same,
            "id_str": .whole, "id": .whole, "created_at": .whole, "full_text": .whole, "text": .whole, "lang": .whole,
            "user": .selection(JSONSelection(["id_str": .whole, "id": .whole, "username": .whole, "screen_name": .whole, "name": .whole])),
            "edit_info": .selection(JSONSelection([
                "initial": .selection(editIDs), "edit": .selection(JSONSelection(["editControlInitial": .selection(editIDs)])),
            ])),
            "entities": .selection(JSONSelection(["urls": links, "media": links, "hashtags": .selection(JSONSelection(["text": .whole]))])),
            "extended_entities": .selection(JSONSelection(["media": links])),
            "in_reply_to_status_id_str": .whole, "in_reply_to_status_id": .whole,
            "in_reply_to_user_id_str": .whole, "in_reply_to_user_id": .whole,
            "favorite_count": .whole, "retweet_count": .whole, "reply_count": .whole, "quote_count": .whole,
        ])
    }()

    /// One archive element as a `tweet` item, or `nil` for an element that is not one (or an earlier version of an
    /// edited tweet).
    static func item(_ element: JSONValue, username: String?, notes: LongPosts) -> Item? {
        let tweet = element["tweet"] ?? element
        guard var item = TwitterV11.item(tweet) else { return nil }
        // Both versions of an edited tweet are in the archive; each lists every id, the last being the current one.
        let edit = tweet["edit_info"]
        if let ids = (edit?["initial"]?["editTweetIds"] ?? edit?["edit"]?["editControlInitial"]?["editTweetIds"])?.array,
            let last = ids.last?.idString, last != item.id
        {
            return nil
        }
        item.createdAt = item.createdAt ?? tweet["created_at"]?.string.flatMap(parseDate)
        let text = tweet["full_text"]?.string ?? tweet["text"]?.string ?? ""
        if let long = notes.text(for: item.createdAt, stored: text) { item.title = PlainText.decodeEntities(long) }
        // The JSON eras have no retweeted_status and `retweeted` is always false: a retweet shows in its text.
        if text.hasPrefix("RT @") { item.extra["isRetweet"] = true }
        let handle = tweet["user"]?["screen_name"]?.nonEmptyString ?? username
        if item.author == nil, let handle { item.author = "@\(handle)" }
        if item.url == nil { item.url = "https://x.com/\(handle ?? "i")/status/\(item.id)" }
        return item
    }

    /// Reads `Sat Nov 09 12:14:18 +0000 2024`, `2017-12-31 17:20:21 +0000` (late Grailbird) and ISO 8601
    /// (`2022-11-03T09:20:26.000Z`).
    public static func parseDate(_ text: String) -> Date? {
        TwitterV11.date(text) ?? ISO8601.date(from: text) ?? grailbirdFormatter.withLock { $0.date(from: text) }
    }

    private static let grailbirdFormatter = LockedFormatter(ISO8601.utcFormatter(format: "yyyy-MM-dd HH:mm:ss Z"))

    /// Calls `body` with each element of the array that follows the first `=` of the file, with only the members
    /// that `selection` names (all without one).
    static func forEachElement(of entry: Entry, selecting selection: JSONSelection? = nil, _ body: (JSONValue) -> Void) throws(AggregateError) {
        try afterAssignment(of: entry) { reader throws(JSONParseError) in
            guard try reader.nextToken() == .arrayStart else {
                throw JSONParseError(reason: "expected a JSON array after the '='", line: 1, column: 1, excerpt: "")
            }
            while let token = try reader.nextToken(), token != .arrayEnd {
                body(try reader.readValue(startingWith: token, selecting: selection))
            }
            // A trailing `;` or newline after the array is not read: the data ends with the array.
        }
    }

    /// The whole JSON value after the first `=` (the manifest's object).
    static func value(of entry: Entry) throws(AggregateError) -> JSONValue {
        var value = JSONValue.null
        try afterAssignment(of: entry) { reader throws(JSONParseError) in value = try reader.readValue() }
        return value
    }

    /// Opens `entry`, skips everything through the first `=`, and hands `read` a stream of what follows.
    private static func afterAssignment(
        of entry: Entry, _ read: (JSONEventReader) throws(JSONParseError) -> Void
    ) throws(AggregateError) {
        let handle = try entry.open()
        defer { try? handle.close() }
        // The assignment is short; the JSON starts right after its `=`.
        var head = Data()
        var equals: Data.Index?
        while equals == nil, head.count < 1 << 16 {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 4096) } catch {
                throw AggregateError(.ioError, "\(entry.path): cannot be read (\(FileSystemReason.describe(error)))")
            }
            guard let chunk, !chunk.isEmpty else { break }
            head.append(chunk)
            equals = head.firstIndex(of: UInt8(ascii: "="))
        }
        guard let equals else {
            throw AggregateError(.invalidInput, "\(entry.path): not an archive data file (no 'window.YTD.… = ' or 'Grailbird.data.… = ' before the data)")
        }
        let reader = JSONEventReader(handle: handle, prefix: head[(equals + 1)...])
        do throws(JSONParseError) {
            try read(reader)
        } catch {
            // Lines and columns count from the start of the file, not from the '='.
            var shifted = error
            if shifted.line == 1 { shifted.column += equals + 1 }
            throw JSONInput.failure(shifted, name: entry.path)
        }
    }
}
