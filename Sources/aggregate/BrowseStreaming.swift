import AggregateCore
import AggregateHTTP
import AggregateJSON
import Foundation

/// `browse` views read as a stream: `--paths`, `--path`, and the outline of a file over
/// ``JSONInput/streamingThreshold``. Memory stays bounded by the nesting depth and the longest string, so
/// `--max-size` does not apply to them.
extension BrowseCommand {
    /// Whether `invocation` is answered from a stream rather than a parsed tree.
    ///
    /// The explorer needs the tree; so does a path with a negative index (`[-1]`), which a stream cannot resolve
    /// before the array ends. An outline of standard input keeps the tree and its size cap. A URL is fetched whole
    /// first, then ``streams(_:body:)`` decides.
    static func streams(_ invocation: Invocation) -> Bool {
        if invocation.path.hasNegativeIndex { return false }
        switch (invocation.source, invocation.mode) {
        case (.url, _), (_, .interactive): return false
        case (_, .paths): return true
        case (.file(let path), .outline):
            return !invocation.path.isRoot || (JSONInput.fileSize(atPath: path) ?? 0) > JSONInput.streamingThreshold
        case (.standardInput, .outline): return !invocation.path.isRoot
        }
    }

    /// Whether a URL's body, fetched whole, is read as a stream rather than parsed into a tree: `--paths`, and the
    /// outline of a body over ``JSONInput/streamingThreshold`` as for files, so a large response is outlined as fast
    /// as the same file. Only of the whole document: a `--path` keeps the tree's reading of a repeated key (the last
    /// member) that it always had for URLs.
    static func streams(_ invocation: Invocation, body: Data) -> Bool {
        guard case .url = invocation.source, invocation.path.isRoot else { return false }
        switch invocation.mode {
        case .interactive: return false
        case .paths: return true
        case .outline: return body.count > JSONInput.streamingThreshold
        }
    }

    /// Prints the outline or the leaf paths of the node at `--path`, reading the document once.
    static func runStreaming(_ invocation: Invocation, console: Console) throws(AggregateError) {
        let source = invocation.source
        let reader: JSONEventReader
        switch source {
        case .file(let path): reader = try JSONInput.openStream(atPath: path)
        case .standardInput:
            if StandardStreams.closedAtStart.input {
                throw AggregateError(.noInput, "standard input is closed; pipe the JSON in, or name a file")
            }
            reader = JSONEventReader(handle: .standardInput)
        case .url:
            throw AggregateError(.usage, "\(source.name): a URL is fetched whole first")  // `streams` never chooses a URL
        }
        try runStreaming(invocation, reader: reader, console: console)
    }

    /// ``runStreaming(_:console:)`` over `reader`: the document of `invocation.source`, opened or fetched.
    static func runStreaming(_ invocation: Invocation, reader: JSONEventReader, console: Console) throws(AggregateError) {
        let source = invocation.source
        // `streams` never chooses the explorer, which needs the document whole.
        if case .interactive = invocation.mode { throw AggregateError(.usage, "the explorer reads the document whole, not as a stream") }
        var missing: JSONPathLookupError?
        do throws(JSONParseError) {
            switch try invocation.path.seek(in: reader) {
            case .failure(let error):
                // Invalid JSON anywhere outranks a missing path, as when the whole document is parsed first.
                try reader.skipToEnd()
                missing = error
            case .success(let nodePath):
                try printNode(reader, at: nodePath, mode: invocation.mode, console: console)
                try reader.skipToEnd()
            }
        } catch {
            throw JSONInput.failure(error, name: source.name)
        }
        if let missing { throw AggregateError(.notFound, "--path \(invocation.path): \(missing.reason)") }
    }

    /// Prints the reader's next value as the outline or the leaf paths.
    private static func printNode(_ reader: JSONEventReader, at nodePath: JSONPath, mode: Mode, console: Console) throws(JSONParseError) {
        switch mode {
        case .outline(let options):
            let lines = try JSONOutline.lines(from: reader, options: options)
            try reader.skipToEnd()  // nothing is printed from an invalid document
            console.out(lines.joined(separator: "\n") + "\n")
        case .paths:
            try JSONOutline.paths(from: reader, prefix: nodePath) { batch in
                batch.withUnsafeBytes { console.out(bytes: $0) }
            }
        case .interactive:
            break  // refused by runStreaming
        }
    }
}
