package import AggregateCore
import AggregateText
import Foundation

/// A URL query string (`provider=tmdb&query=the+dark+knight`) as the browser sends a GET form: name–value pairs in
/// order, `+` for a space and `%XX` for bytes of UTF-8. A name may repeat (a list of checkboxes, compare's `i`).
package struct WebQuery: Sendable, Equatable {
    /// The pairs in the order they came.
    package var pairs: [(name: String, value: String)]

    /// Reads a query string, with or without its leading `?`.
    /// - Throws: a `usage` error for a name or value whose percent escapes are not UTF-8.
    package init(_ query: String) throws(AggregateError) {
        pairs = []
        let text = query.hasPrefix("?") ? String(query.dropFirst()) : query
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring, value: Substring
            if let equals = part.firstIndex(of: "=") {
                (name, value) = (part[..<equals], part[part.index(after: equals)...])
            } else {
                (name, value) = (part, "")
            }
            pairs.append((try Self.decode(name), try Self.decode(value)))
        }
    }

    /// Creates a query from pairs.
    package init(pairs: [(name: String, value: String)]) { self.pairs = pairs }

    package static func == (lhs: WebQuery, rhs: WebQuery) -> Bool {
        lhs.pairs.map(\.name) == rhs.pairs.map(\.name) && lhs.pairs.map(\.value) == rhs.pairs.map(\.value)
    }

    /// Every value given for `name`, in order.
    package func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// The names given, each once, in the order they first came.
    package var names: [String] {
        var seen = Set<String>()
        return pairs.map(\.name).filter { seen.insert($0).inserted }
    }

    /// The query string, `+` for spaces and everything but unreserved characters escaped (no leading `?`).
    package var encoded: String {
        pairs.map { Self.encode($0.name) + "=" + Self.encode($0.value) }.joined(separator: "&")
    }

    // MARK: - Escapes

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~")

    /// `text` for a query string: unreserved characters as they are, a space as `+`, the rest as `%XX`.
    package static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if byte == 0x20 {
                encoded += "+"
            } else if let scalar = Unicode.Scalar(UInt32(byte)), byte < 0x80, unreserved.contains(scalar) {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    /// `+` as a space, then `%XX` escapes as UTF-8 bytes. A `%` not followed by two hex digits is kept as it is, as
    /// browsers and most servers do.
    static func decode(_ text: Substring) throws(AggregateError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%"),
                let first = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), first != utf8.endIndex,
                let second = utf8.index(first, offsetBy: 1, limitedBy: utf8.endIndex), second != utf8.endIndex,
                let high = HexDigit.value(utf8[first]), let low = HexDigit.value(utf8[second])
            {
                bytes.append(high << 4 | low)
                index = second
            } else {
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw AggregateError(.usage, "the query string is not UTF-8 text once its %-escapes are decoded")
        }
        return decoded
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
