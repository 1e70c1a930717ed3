import AggregateCore
import Foundation

/// `--max-size`: the most a command reads whole into memory from a file or a stream (`browse`, `normalize`), so
/// that `</dev/zero` or a mistaken multi-gigabyte file ends in one line instead of exhausting memory.
enum SizeCap {
    /// The value of `--max-size` (`text`), or `defaultBytes` when it was not given.
    /// - Throws: a usage error for a value that is not a size from 1 byte to 4 GiB.
    static func maxBytes(_ text: String?, default defaultBytes: Int) throws(AggregateError) -> Int {
        guard let text else { return defaultBytes }
        guard let bytes = parse(text) else {
            throw AggregateError(.usage, "--max-size must be a size from 1 byte to 4G, such as 500000, 512K, 64M or 1G, not '\(text)'")
        }
        return bytes
    }

    /// `1048576`, `512K`, `64M`, `1G`, `64MiB`, `64MB` (all binary), at most 4 GiB.
    static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard let number = Double(digits), number > 0 else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1, "k": 0x400, "kb": 0x400, "kib": 0x400, "m": 0x10_0000, "mb": 0x10_0000, "mib": 0x10_0000,
            "g": 0x4000_0000, "gb": 0x4000_0000, "gib": 0x4000_0000,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        let bytes = (number * multiplier).rounded(.down)
        guard bytes >= 1, bytes <= Double(4 << 30) else { return nil }
        return Int(bytes)
    }
}
