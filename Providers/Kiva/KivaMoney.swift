import AggregateCore
import AggregateJSON
import AggregateRendering
import AggregateText
import Foundation

/// Money arithmetic and display, all in `Decimal`: amounts never pass through `Double`.
enum KivaMoney {
    /// Lenders lend in US dollars: both APIs give loan and funded amounts in USD, whatever the borrower's currency.
    static let currencyCode = "USD"

    /// `extra.currency` for an item whose `metrics` hold an amount, else `nil`.
    static func currency(for metrics: [String: Decimal]) -> JSONValue? {
        metrics["loanAmount"] != nil || metrics["fundedAmount"] != nil ? .string(currencyCode) : nil
    }

    /// `funded × 100 ÷ amount`, rounded half-up to two decimal places (425 of 600 is 70.83); `nil` when the
    /// amount is not positive.
    static func percentFunded(_ funded: Decimal, of amount: Decimal) -> Decimal? {
        amount > 0 ? DecimalText.rounded(funded * 100 / amount, places: 2) : nil
    }

    /// The whole percent shown in text: rounded half-up, but never 100 for a loan that still needs money
    /// nor 0 for one that has some (99.9% shows 99, 0.2% shows 1).
    static func displayPercent(_ funded: Decimal, of amount: Decimal) -> Int? {
        guard amount > 0 else { return nil }
        let whole = NSDecimalNumber(decimal: DecimalText.rounded(funded * 100 / amount, places: 0)).intValue
        if funded > 0, funded < amount { return min(99, max(1, whole)) }
        return whole
    }

    /// `"$425 of $600 (71%)"`, `"$600"` when nothing is known of the funding, or `nil` without an amount.
    static func progress(funded: Decimal?, of amount: Decimal?) -> String? {
        switch (funded, amount) {
        case let (funded?, amount?):
            let percent = displayPercent(funded, of: amount).map { " (\($0)%)" } ?? ""
            return "\(dollars(funded)) of \(dollars(amount))\(percent)"
        case let (nil, amount?):
            return dollars(amount)
        case let (funded?, nil):
            return "\(dollars(funded)) raised"
        case (nil, nil):
            return nil
        }
    }

    /// `amount` as US dollars for people: `$1,350`, or `$12.50` when there are cents.
    static func dollars(_ amount: Decimal) -> String {
        var text = DecimalText.fixed(amount, places: 2)
        if text.hasSuffix(".00") { text.removeLast(3) }
        let negative = text.hasPrefix("-")
        return (negative ? "-$" : "$") + DecimalText.grouped(String(text.dropFirst(negative ? 1 : 0)))
    }
}

/// The one-line text view of a loan:
/// `Aisha — Food Production · Agriculture — Kenya: $425 of $600 (71%) — to buy fertilizer…`.
enum KivaText {
    /// The line for `item`, cut to the style's width.
    static func line(for item: Item, style: TextStyle) -> String {
        var parts = [item.title]
        if let subtitle = item.subtitle { parts.append(subtitle) }
        if let funding = funding(item) { parts.append(funding) }
        // The summary's first paragraph: the loan's use (the description follows it in the JSON).
        if let use = item.summary?.components(separatedBy: "\n\n").first, !use.isEmpty { parts.append(use) }
        return TextRenderer.oneLine(parts, style: style)
    }

    /// `Kenya: $425 of $600 (71%)`, or whichever half is known.
    static func funding(_ item: Item) -> String? {
        let money = KivaMoney.progress(funded: item.metrics["fundedAmount"], of: item.metrics["loanAmount"])
        switch (item.location?.country, money) {
        case let (country?, money?): return "\(country): \(money)"
        case let (country?, nil): return country
        case let (nil, money?): return money
        case (nil, nil): return nil
        }
    }
}
