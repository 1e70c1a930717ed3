import Foundation

/// JSON through the public parse API: whatever parses must write back to text that parses to an equal value, and
/// writing that value again must give the same bytes (parse → write → parse, equal and byte-identical).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    guard let value = try? JSONParser().parse(input) else { return 0 }
    let written = JSONWriter().data(value)
    guard let again = try? JSONParser().parse(written) else { fatalError("written JSON does not parse: \(String(decoding: written, as: UTF8.self))") }
    guard again == value else { fatalError("round trip changed the value") }
    guard JSONWriter().data(again) == written else { fatalError("writing is not stable") }
    let pretty = JSONWriter(pretty: true).data(value)
    guard (try? JSONParser().parse(pretty)) == value else { fatalError("pretty JSON does not read back") }
    return 0
}
