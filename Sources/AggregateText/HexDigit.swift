/// ASCII hexadecimal digits read as numbers: `\u` escapes in JSON and `%` escapes in URLs alike.
package enum HexDigit {
    /// The value of `byte` as a hexadecimal digit (`0`–`9`, `a`–`f`, `A`–`F`), or `nil` when it is none.
    @inlinable
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
