public import AggregateJSON
import AggregateText
public import Foundation

/// Reads a JSON document from a file or a stream for `aggregate browse`, with a size cap checked before the
/// document is in memory, and one clear error for every way the bytes can be wrong.
///
/// Errors are ``AggregateError``s: `noInput` (66) when a file cannot be opened, `ioError` (74) when reading fails,
/// `tooLarge` over the cap, and `invalidInput` (exit 65) for an empty input, a UTF-16/UTF-32 encoding, bytes that
/// are not UTF-8, invalid JSON (line, column and a short excerpt) or nesting deeper than the parser allows. A UTF-8 byte order mark is skipped.
public enum JSONInput {
    /// The default size cap: 64 MiB.
    public static let defaultMaxBytes = 64 << 20

    /// Reads the file at `path`, refusing it from its size alone when it is over `maxBytes`.
    public static func readFile(atPath path: String, maxBytes: Int) throws(AggregateError) -> Data {
        let handle = try open(path)
        defer { try? handle.close() }
        // A regular file's size is known before reading; pipes and devices report 0 and are read in chunks.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber, size.int64Value > Int64(maxBytes) {
            throw tooLarge(path, bytes: Int(truncatingIfNeeded: size.int64Value), maxBytes: maxBytes)
        }
        return try read(handle, name: path, maxBytes: maxBytes)
    }

    /// What to do about an input over its cap, for `browse` and `normalize`.
    public static let maxSizeHint = "raise it with --max-size, or cut the input down first"

    /// Reads `handle` to its end in chunks, stopping with `tooLarge` as soon as more than `maxBytes` arrived.
    /// - Parameter hint: what the `tooLarge` error tells the user to do.
    public static func read(_ handle: FileHandle, name: String, maxBytes: Int, hint: String = maxSizeHint) throws(AggregateError) -> Data {
        var data = Data()
        let chunk = 1 << 20
        while true {
            let piece: Data?
            do {
                piece = try handle.read(upToCount: min(chunk, maxBytes + 1 - data.count))
            } catch {
                throw AggregateError(.ioError, "\(name): cannot be read (\(FileSystemReason.describe(error)))")
            }
            guard let piece, !piece.isEmpty else { return data }
            data.append(piece)
            if data.count > maxBytes { throw tooLarge(name, bytes: nil, maxBytes: maxBytes, hint: hint) }
        }
    }

    /// Parses `data` (read from `name`) as one JSON document.
    public static func decode(_ data: Data, name: String, maxDepth: Int = 512) throws(AggregateError) -> JSONValue {
        try checkEncoding(data, name: name)
        do {
            return try JSONParser(maxDepth: maxDepth).parse(data)
        } catch {
            throw failure(error, name: name)
        }
    }

    /// Files larger than this are read as a stream by the views that can be streamed (8 MiB).
    public static let streamingThreshold = 8 << 20

    /// The size of the regular file at `path`, or `nil` (missing, a pipe, a device).
    public static func fileSize(atPath path: String) -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? NSNumber
        else { return nil }
        return Int(truncatingIfNeeded: size.int64Value)
    }

    /// Opens the file at `path` as a stream of JSON events, with no size cap (memory stays bounded).
    public static func openStream(atPath path: String, maxDepth: Int = 512) throws(AggregateError) -> JSONEventReader {
        JSONEventReader(handle: try open(path), maxDepth: maxDepth)
    }

    /// Opens a JSON file for reading, with one error for each way it cannot be (all `noInput`, exit 66).
    private static func open(_ path: String) throws(AggregateError) -> FileHandle {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AggregateError(.noInput, "\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw AggregateError(.noInput, "\(path): is a directory, not a JSON file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AggregateError(.noInput, "\(path): cannot be opened (\(FileSystemReason.describe(errno: errno)))")
        }
        return handle
    }

    /// The one error for a document from `name` that a parser or stream refused: exit 65 with line, column and an
    /// excerpt, or what to do about an encoding that is not UTF-8.
    public static func failure(_ error: JSONParseError, name: String) -> AggregateError {
        if error.line == 0 { return AggregateError(.ioError, "\(name): \(error.reason)") }
        if error.reason.hasPrefix("the input looks like") { return wideEncoding(error.reason, name: name) }
        if error.reason.hasPrefix("not valid UTF-8") {
            return notUTF8(name: name, byte: String(error.reason.suffix(4)), line: error.line, column: error.column)
        }
        var reason = error.reason
        if reason.hasPrefix("nesting deeper") { reason += " (the most this tool reads)" }
        let excerpt = printable(error.excerpt).trimmingCharacters(in: .whitespaces)
        let position = "line \(error.line), column \(error.column)"
        return AggregateError(
            .invalidInput,
            reason == "empty input"
                ? "\(name): the input is empty; expected a JSON document"
                : "\(name): invalid JSON: \(reason) at \(position)\(excerpt.isEmpty ? "" : ": \(excerpt)")")
    }

    private static func wideEncoding(_ reason: String, name: String) -> AggregateError {
        AggregateError(.invalidInput, "\(name): \(reason); JSON must be UTF-8 (convert it, e.g. with iconv -t UTF-8)")
    }

    private static func notUTF8(name: String, byte: String, line: Int, column: Int) -> AggregateError {
        AggregateError(
            .invalidInput,
            "\(name): not valid UTF-8: byte \(byte) at line \(line), column \(column); JSON must be UTF-8 (a Latin-1 file converts with iconv -f latin1 -t UTF-8)")
    }

    /// Refuses input that is not UTF-8: UTF-16/32 (by their byte order marks or zero bytes) and invalid sequences,
    /// naming the line and column of the first bad byte.
    static func checkEncoding(_ data: Data, name: String) throws(AggregateError) {
        if let reason = JSONEncoding.wideEncoding(head: [UInt8](data.prefix(4))) { throw wideEncoding(reason, name: name) }
        guard let offset = JSONEncoding.firstInvalidUTF8(data) else { return }
        var line = 1
        var lineStart = 0
        let bytes = [UInt8](data)
        do {
            for index in 0..<offset where bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
        }
        throw notUTF8(name: name, byte: String(format: "0x%02X", bytes[offset]), line: line, column: offset - lineStart + 1)
    }

    /// `text` with control characters shown as `�`, so an excerpt cannot move the cursor or change colours.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) ? "\u{FFFD}" : scalar
        }))
    }

    private static func tooLarge(_ name: String, bytes: Int?, maxBytes: Int, hint: String = maxSizeHint) -> AggregateError {
        let size = bytes.map { " is \(ByteCount.describe($0)), which is" } ?? " is"
        return AggregateError(.tooLarge, "\(name)\(size) larger than the \(ByteCount.describe(maxBytes)) size cap; \(hint)")
    }
}
