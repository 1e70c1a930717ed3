import Foundation

/// A value made by the first caller that asks for it, once, under a lock; later callers get the same value. For what
/// a run may never need (a provider, a definition, an emulator), so that a run makes only what it uses.
package final class Once<Value: Sendable>: @unchecked Sendable {
    private let make: @Sendable () -> Value
    private let lock = NSLock()
    private var made: Value?

    package init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    /// The value, made now if it has not been.
    package var value: Value {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let value = make()
        made = value
        return value
    }

    /// Whether the value has been made.
    package var isMade: Bool {
        lock.lock()
        defer { lock.unlock() }
        return made != nil
    }
}

extension String {
    /// `RADIUS_KM` from `radius-km`: upper case with `_` for `-`. An ASCII text (every option name in practice) is
    /// mapped byte by byte, without bridging to `NSString`; any other goes through Foundation.
    package var upperSnakeCased: String {
        let upper = uppercased()
        guard upper.utf8.allSatisfy({ $0 < 0x80 }) else { return upper.replacingOccurrences(of: "-", with: "_") }
        return String(decoding: upper.utf8.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "_") : $0 }, as: UTF8.self)
    }
}
