public import Foundation

/// Whether bytes can be JSON text at all: JSON is UTF-8. The readers check this as they go; this is the same check
/// for code that reads a whole input first and wants to name the problem before parsing.
public enum JSONEncoding {
    /// `the input looks like UTF-16` (or UTF-32) when the first bytes (`head`, up to four) say so, by a byte order
    /// mark or zero bytes; `nil` otherwise.
    public static func wideEncoding(head: [UInt8]) -> String? { JSONScan.wideEncoding(head: head) }

    /// The offset of the first byte of `data` that does not belong to a valid UTF-8 sequence, or `nil`.
    public static func firstInvalidUTF8(_ data: Data) -> Int? {
        data.withUnsafeBytes { JSONScan.checkUTF8($0, from: 0, final: true).invalid }
    }
}
