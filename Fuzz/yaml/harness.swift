import Foundation

/// `YAMLParser` over any bytes: it returns a value or throws a `YAMLError` whose line and column lie inside the
/// input and whose reason is one line, with no control character in it (quoted text shows them escaped); never traps,
/// never hangs. A value writes as JSON that reads back equal, and a tight alias limit is honoured (the same input
/// under a limit of 16 alias nodes reads the same or is refused).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYAML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // YAML breaks lines at \n, \r\n and a lone \r.
    let lines = 1 + bytes.indices.filter { bytes[$0] == 0x0A || (bytes[$0] == 0x0D && ($0 + 1 == bytes.count || bytes[$0 + 1] != 0x0A)) }.count
    let result: Result<JSONValue, YAMLError>
    do throws(YAMLError) { result = .success(try YAMLParser.parse(bytes)) } catch { result = .failure(error) }
    switch result {
    case .failure(let error):
        guard error.line >= 1, error.line <= lines + 1, error.column >= 1, !error.reason.isEmpty,
            !error.reason.unicodeScalars.contains(where: breaksTheLine)
        else { fatalError("a malformed error: \(error)") }
    case .success(let value):
        let written = JSONWriter().data(value)
        guard (try? JSONParser().parse(written)) == value else { fatalError("the value does not round-trip as JSON") }
        let limited = try? YAMLParser.parse(bytes, limits: YAMLParser.Limits(aliasNodes: 16, depth: 200))
        if let limited, limited != value { fatalError("a limit changed the value instead of refusing") }
    }
    return 0
}

/// A line break or control character: a reason that quotes document text must show it escaped.
private func breaksTheLine(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
}
