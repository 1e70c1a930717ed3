import Foundation

/// The word-at-a-time scans of ``JSONScan`` against the byte-at-a-time reference, ``JSONSimpleScan``: from every
/// offset of the input, as a final window and as one that more bytes follow, the string scan must give the same
/// outcome (where the token ends, or which error at which offset) and the same shape, with the UTF-8 check folded in
/// and without, and the UTF-8 check, the whitespace skip and the newline count the same answers. Any difference is a
/// crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONScan(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Every offset is scanned to the end, so long inputs are cut: what matters is where bytes fall in a word.
    let size = min(size, 512)
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    for start in 0...size {
        let prefix = UnsafeRawBufferPointer(rebasing: bytes[0..<start])
        let fastLines = JSONScan.Words.newlines(prefix)
        let simpleLines = JSONSimpleScan.newlines(prefix)
        guard fastLines.count == simpleLines.count, fastLines.lineStart == simpleLines.lineStart else {
            fatalError("newlines before \(start): fast \(fastLines), simple \(simpleLines)")
        }
        guard JSONScan.skipWhitespace(bytes, start) == JSONSimpleScan.skipWhitespace(bytes, start) else {
            fatalError("whitespace from \(start) differs")
        }
        guard JSONScan.Words.skipPlain(bytes, from: start) == JSONSimpleScan.firstSpecial(bytes, from: start) else {
            fatalError("plain text from \(start) differs")
        }
        for final in [true, false] {
            let fastUTF8 = JSONScan.checkUTF8(bytes, from: start, final: final)
            let simpleUTF8 = JSONSimpleScan.checkUTF8(bytes, from: start, final: final)
            guard fastUTF8.invalid == simpleUTF8.invalid, fastUTF8.checkedEnd == simpleUTF8.checkedEnd else {
                fatalError("UTF-8 from \(start) (final \(final)): fast \(fastUTF8), simple \(simpleUTF8)")
            }
            // A string scan starts at an opening quote; any byte stands in for it, as the scan never reads it.
            guard start < size else { continue }
            // With and without the UTF-8 check that the streaming reader folds into its string scans.
            for checkUTF8 in [true, false] {
                var fastShape = JSONScan.StringShape()
                var simpleShape = JSONScan.StringShape()
                let fast = JSONScan.string(bytes, from: start, final: final, shape: &fastShape, checkUTF8: checkUTF8)
                let simple = JSONSimpleScan.string(bytes, from: start, final: final, shape: &simpleShape, checkUTF8: checkUTF8)
                guard fast == simple else { fatalError("string from \(start) (final \(final), UTF-8 \(checkUTF8)): fast \(fast), simple \(simple)") }
                if case .complete = simple, fastShape.escaped != simpleShape.escaped || fastShape.nonASCII != simpleShape.nonASCII {
                    fatalError("string from \(start): shapes differ")
                }
            }
        }
    }
    return 0
}
