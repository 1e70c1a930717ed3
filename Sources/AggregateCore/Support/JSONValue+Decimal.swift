public import AggregateJSON
public import Foundation

extension JSONValue {
    /// ``decimal``, but a number's text is read without the POSIX locale (its separator is always `.`), whose ICU
    /// data is the largest cost of a short run that reads a number (TMDb's list).
    public var decimalWithoutLocale: Decimal? {
        guard case .number(let text) = self else { return decimal }
        return text.utf8.count < 16 ? Int(text).map { Decimal($0) } ?? Decimal(string: text) : Decimal(string: text)
    }
}
