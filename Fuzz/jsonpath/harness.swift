import Foundation

/// Path text: whatever parses prints as a canonical path that parses back to the same segments, and printing
/// that again gives the same text; resolving it against a small document never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONPath(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let path = try? JSONPath(parsing: text) else { return 0 }
    let printed = path.description
    guard let again = try? JSONPath(parsing: printed) else { fatalError("printed path does not parse: \(printed)") }
    guard again == path else { fatalError("round trip changed the path: \(printed)") }
    guard again.description == printed else { fatalError("printing is not stable: \(printed)") }
    let document: JSONValue = ["a": [1, ["b": "c"]], "0": true]
    _ = try? path.resolve(in: document)
    return 0
}
