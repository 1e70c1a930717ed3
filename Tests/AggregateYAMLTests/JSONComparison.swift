import AggregateJSON
import Foundation

/// Compares two JSON values as JSON: numbers by value (`1.0` equals `1`, `1e3` equals `1000`), objects by their
/// members in order.
enum JSONComparison {
    /// Where the values first differ (a JSON-pointer-like path and both sides), or `nil` when they are equal.
    static func firstDifference(_ left: JSONValue, _ right: JSONValue, at path: String = "") -> String? {
        switch (left, right) {
        case (.number(let a), .number(let b)):
            if a == b { return nil }
            if let x = Decimal(string: a, locale: Locale(identifier: "en_US_POSIX")),
                let y = Decimal(string: b, locale: Locale(identifier: "en_US_POSIX")), x == y
            {
                return nil
            }
            return "\(path): \(a) vs \(b)"
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return "\(path): \(a.count) elements vs \(b.count)" }
            for index in a.indices {
                if let difference = firstDifference(a[index], b[index], at: "\(path)/\(index)") { return difference }
            }
            return nil
        case (.object(let a), .object(let b)):
            guard a.keys == b.keys else { return "\(path): keys \(a.keys.prefix(20)) vs \(b.keys.prefix(20))" }
            for (x, y) in zip(a.members, b.members) {
                if let difference = firstDifference(x.value, y.value, at: "\(path)/\(x.key)") { return difference }
            }
            return nil
        default:
            return left == right ? nil : "\(path): \(JSONWriter().string(left).prefix(200)) vs \(JSONWriter().string(right).prefix(200))"
        }
    }
}
