import AggregateCore
import AggregateJSON
import Foundation

/// Turns one record into a unified item by an operation's mapping.
struct DefinitionMapper {
    let provider: String
    let operation: ProviderDefinition.Operation
    /// The definition's file, which warnings name.
    var source = "provider.json"
    /// What a relative `url` or `imageUrl` is resolved against: the definition's `baseURL`, so an API that answers
    /// `/uploads/x.jpeg` (DEV, Discourse) gives `https://dev.to/uploads/x.jpeg`, the same live, replayed or offline.
    var linkBase: URL? = nil

    /// `text` as an absolute URL: as it is when it has a scheme, else resolved against ``linkBase``; `nil` when it is
    /// neither, so an item never carries a link the result schema's `uri` refuses.
    func link(_ text: String) -> String? {
        if let url = URL(string: text), url.scheme != nil { return text }
        guard let linkBase, let resolved = URL(string: text, relativeTo: linkBase)?.absoluteURL, resolved.host != nil else { return nil }
        return resolved.absoluteString
    }

    /// The item, or `nil` when the record has no id or no title.
    func item(from record: JSONValue) -> Item? {
        let mapping = operation.item
        guard let id = mapping.id.text(in: record), !id.isEmpty, let title = mapping.title.text(in: record) else { return nil }
        // A kind read from the record that is not a lower-case identifier would break the result schema: the declared one stands in.
        let kind = mapping.kind?.text(in: record).flatMap { DefinitionLimits.isItemKind($0) ? $0 : nil } ?? operation.descriptor.itemKind
        var item = Item(provider: provider, kind: kind, id: id, title: title)
        for (field, rule) in mapping.text {
            let text = rule.text(in: record)
            switch field {
            case .subtitle: item.subtitle = text
            case .summary: item.summary = text
            case .url: item.url = text.flatMap(link)
            case .imageUrl: item.imageUrl = text.flatMap(link)
            default: item.author = text
            }
        }
        if let reading = mapping.createdAt?.date(in: record) {
            if let why = DefinitionDates.suspiciousEpochSeconds(reading.value, format: reading.format) {
                let pointer = "\(source): \(operation.pointer)/item/createdAt"
                DefinitionWarnings.report(.init(provider: provider, message: "\(pointer) \(why)", key: pointer))
            }
            item.createdAt = reading.date
        }
        if !mapping.location.isEmpty {
            var location = Location()
            for (part, rule) in mapping.location {
                switch part {
                case "city": location.city = rule.text(in: record)
                case "country": location.country = rule.text(in: record)
                case "latitude": location.latitude = rule.value(in: record).flatMap(Self.double)
                default: location.longitude = rule.value(in: record).flatMap(Self.double)
                }
            }
            item.location = location.nonEmpty
        }
        for (name, rule) in mapping.metrics {
            if let number = rule.value(in: record)?.decimal { item.metrics[name] = number }
        }
        if let tags = mapping.tags?.value(in: record) {
            item.tags = (tags.array ?? [tags]).compactMap(ValueRule.text).filter { !$0.isEmpty }
        }
        for (name, rule) in mapping.extra {
            if let value = rule.value(in: record) { item.extra.set(name, value) }
        }
        return item
    }

    /// A number, or numeric text, as a `Double`.
    static func double(_ value: JSONValue) -> Double? {
        value.double ?? value.string.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
}
