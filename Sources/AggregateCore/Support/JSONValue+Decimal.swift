public import AggregateJSON
public import Foundation

extension JSONValue {
    /// The value as a decimal, as ``JSONValue/decimal`` reads it, but a JSON number's text is read without making
    /// a locale: its decimal separator is always `.`, and making the POSIX locale loads ICU's locale data, the
    /// largest cost of a short run that reads one number (TMDb's list). Other values are read by `decimal`.
    public var decimalWithoutLocale: Decimal? {
        guard case .number(let text) = self else { return decimal }
        if text.utf8.count < 16, let integer = Int(text) { return Decimal(integer) }
        return Decimal(string: text)
    }
}
