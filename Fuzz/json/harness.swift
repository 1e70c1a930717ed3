import Foundation

/// JSON through both public readers. The streaming reader must agree with the tree parser on every input: the
/// same value, or the same error (reading in a small window, so tokens straddle refills). Whatever parses must
/// write back to text that parses to an equal value, and writing that value again must give the same bytes
/// (parse → write → parse, equal and byte-identical).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    let tree: Result<JSONValue, JSONParseError>
    do throws(JSONParseError) { tree = .success(try JSONParser().parse(input)) } catch { tree = .failure(error) }
    let streamed: Result<JSONValue, JSONParseError>
    do throws(JSONParseError) {
        let reader = JSONEventReader(data: input, chunkSize: 7)
        let value = try reader.readValue()
        // A second value after the first is an error for the tree parser too; nextToken reports it.
        guard try reader.nextToken() == nil else { fatalError("the streaming reader accepted trailing data") }
        streamed = .success(value)
    } catch { streamed = .failure(error) }
    // The excerpt quotes what the reader still holds, which a small window cuts short; what and where must agree.
    func verdict(_ result: Result<JSONValue, JSONParseError>) -> String {
        switch result {
        case .success(let value): return "value " + JSONWriter().string(value)
        case .failure(let error): return "error \(error.reason) at \(error.line):\(error.column)"
        }
    }
    // The reader's fast path (tokens that lie whole in the window) against its reference grammar alone: the same
    // tokens with the same texts and depths, and the same error with the same position and excerpt.
    // Containers skipped whole (``JSONEventReader/skipRest()``) end where the reference grammar ends them, and so
    // does the rest of the document skipped (``JSONEventReader/skipToEnd()``) after a few tokens.
    for chunk in [7, 64] {
        for skipDepth in [nil, 1, 2] as [Int?] {
            let fast = JSONEventReader.tokenTrace(input, chunkSize: chunk, fastPath: true, skipDepth: skipDepth)
            guard fast == JSONEventReader.tokenTrace(input, chunkSize: chunk, fastPath: false, skipDepth: skipDepth) else {
                fatalError("the fast path disagrees (window \(chunk), skipping at depth \(skipDepth ?? 0)): \(fast)")
            }
        }
        for tokens in [0, 2] {
            let skipped = JSONEventReader.endingTrace(input, chunkSize: chunk, after: tokens, fastPath: true)
            guard skipped == JSONEventReader.endingTrace(input, chunkSize: chunk, after: tokens, fastPath: false) else {
                fatalError("skipping to the end disagrees (window \(chunk), after \(tokens) tokens): \(skipped)")
            }
        }
    }
    if (try? JSONInput.checkEncoding(input, name: "input")) == nil {
        // Documented difference for input that is not UTF-8 (or is UTF-16/32): the stream judges each byte as it
        // arrives, the tree parser (behind the same encoding check in JSONInput) the first syntax problem. Both refuse.
        guard case .failure = streamed, (try? JSONInput.decode(input, name: "input")) == nil else {
            fatalError("input that is not UTF-8 was accepted: tree \(verdict(tree)), streamed \(verdict(streamed))")
        }
        return 0
    }
    guard verdict(tree) == verdict(streamed) else { fatalError("the readers disagree: tree \(verdict(tree)), streamed \(verdict(streamed))") }
    checkSelection(input, tree: tree)
    guard case .success(let value) = tree else { return 0 }
    let written = JSONWriter().data(value)
    guard let again = try? JSONParser().parse(written) else { fatalError("written JSON does not parse: \(String(decoding: written, as: UTF8.self))") }
    guard again == value else { fatalError("round trip changed the value") }
    guard JSONWriter().data(again) == written else { fatalError("writing is not stable") }
    let pretty = JSONWriter(pretty: true).data(value)
    guard (try? JSONParser().parse(pretty)) == value else { fatalError("pretty JSON does not read back") }
    return 0
}


/// A selected read (``JSONEventReader/readValue(startingWith:selecting:)``) keeps exactly the members whose keys the
/// selection names, at every level (here: the keys of odd UTF-8 length found anywhere in the value, each kept with
/// the same selection), and refuses what the whole read refuses.
private func checkSelection(_ input: Data, tree: Result<JSONValue, JSONParseError>) {
    var kept: Set<String> = []
    func collect(_ value: JSONValue) {
        if let object = value.object {
            for member in object.members {
                if member.key.utf8.count % 2 == 1 { kept.insert(member.key) }
                collect(member.value)
            }
        } else if let elements = value.array {
            elements.forEach(collect)
        }
    }
    func project(_ value: JSONValue) -> JSONValue {
        if let object = value.object {
            return .object(JSONObject(object.members.filter { kept.contains($0.key) }.map { JSONObject.Member($0.key, project($0.value)) }))
        }
        if let elements = value.array { return .array(elements.map(project)) }
        return value
    }
    if case .success(let value) = tree { collect(value) }
    let selection = JSONSelection(Dictionary(uniqueKeysWithValues: kept.map { ($0, JSONSelection.Member.same) }))
    let selected: JSONValue?
    do throws(JSONParseError) {
        let reader = JSONEventReader(data: input, chunkSize: 7)
        guard let first = try reader.nextToken() else { throw JSONParseError(reason: "empty", line: 1, column: 1, excerpt: "") }
        let value = try reader.readValue(startingWith: first, selecting: selection)
        selected = try reader.nextToken() == nil ? value : nil
    } catch { selected = nil }
    switch tree {
    case .success(let value):
        guard let selected, selected == project(value) else { fatalError("the selected read differs: \(selected.map { JSONWriter().string($0) } ?? "refused")") }
    case .failure:
        guard selected == nil else { fatalError("the selected read accepted what the tree parser refuses") }
    }
}
