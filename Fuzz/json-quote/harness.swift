import Foundation

/// The writer's word-at-a-time escape search against the byte-at-a-time reference: from every offset of the input,
/// ``JSONScan/Words/skipUnescaped(_:from:)`` must stop where ``JSONSimpleScan/firstToEscape(_:from:)`` stops, and
/// ``JSONWriter/appendQuoted(utf8:to:)`` must write exactly the bytes of a writer that looks at one byte at a time.
/// When the input is a JSON document, its `--paths` lines read as a stream in small windows (strings written from
/// their bytes) must equal the tree's, byte for byte. Any difference is a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONQuote(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let size = min(size, 1024)
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    for start in 0...size where JSONScan.Words.skipUnescaped(bytes, from: start) != JSONSimpleScan.firstToEscape(bytes, from: start) {
        fatalError("escape search from \(start) differs")
    }
    var fast: [UInt8] = []
    JSONWriter.appendQuoted(utf8: UnsafeBufferPointer(start: data, count: size), to: &fast)
    guard fast == JSONSimpleScan.quoted(Array(UnsafeBufferPointer(start: data, count: size))) else { fatalError("quoted text differs") }

    let document = Data(bytes: data, count: size)
    guard let tree = try? JSONParser().parse(document) else { return 0 }
    let expected = Array(JSONOutline.paths(tree).map { $0 + "\n" }.joined().utf8)
    for chunkSize in [16, 37] {
        var streamed: [UInt8] = []
        do {
            try JSONOutline.paths(from: JSONEventReader(data: document, chunkSize: chunkSize), batchBytes: 64) { streamed += $0 }
        } catch {
            // The stream refuses bytes that are not UTF-8 as they arrive, the tree only in strings it decodes.
            continue
        }
        guard streamed == expected else { fatalError("streamed paths differ from the tree's (windows of \(chunkSize))") }
    }
    return 0
}
