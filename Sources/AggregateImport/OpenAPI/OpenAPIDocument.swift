public import AggregateCore
public import AggregateJSON
public import Foundation

/// An OpenAPI 3.0/3.1 or Swagger 2.0 document, parsed once, with its local `$ref`s followed on demand.
public final class OpenAPIDocument {
    /// The document as parsed.
    public let root: JSONValue
    /// Whether it is Swagger 2.0 (`swagger: "2.0"`), whose parameters, responses and security differ from 3.x.
    public let isSwagger2: Bool
    /// Each `$ref` target already looked up, so a schema used by a thousand operations is found once.
    private var targets: [String: JSONValue?] = [:]
    /// Each response schema `$ref` already analysed (``OpenAPIResponseAnalysis/of(_:pointer:document:)``).
    var analyses: [String: OpenAPIResponseAnalysis] = [:]

    /// The most `$ref`s followed in a row (a chain, not a recursion: recursions are stopped by ``SchemaWalk``).
    static let maxReferenceChain = 32

    public init(root: JSONValue) {
        self.root = root
        isSwagger2 = root["swagger"]?.string?.hasPrefix("2") == true
    }

    /// Reads `data` from `name` (a file's path, or `stdin`): JSON when its first non-space byte is `{`, else YAML.
    /// - Throws: `.invalidInput` (exit 65) with the line and column of a malformed document, or when it is not an
    ///   OpenAPI or Swagger document.
    public static func parse(_ data: Data, name: String) throws(AggregateError) -> OpenAPIDocument {
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        let root: JSONValue
        if first == UInt8(ascii: "{") {
            root = try JSONInput.decode(data, name: name)
        } else {
            root = try OpenAPIYAML.parse(data, name: name)
        }
        guard root["openapi"]?.string != nil || root["swagger"]?.string != nil, root["paths"]?.object != nil else {
            throw AggregateError(.invalidInput, "\(name): not an OpenAPI or Swagger document: it needs 'openapi' (or 'swagger') and 'paths' at the top level")
        }
        return OpenAPIDocument(root: root)
    }

    /// `value` with its `$ref` followed (a chain of them too), and the pointer where the result is; `value` itself
    /// when it is not a reference. A reference outside the document, to nowhere, or in a loop gives `nil`.
    func resolve(_ value: JSONValue, pointer: String) -> (value: JSONValue, pointer: String)? {
        var current = (value: value, pointer: pointer)
        var seen: Set<String> = []
        while let reference = current.value["$ref"]?.string {
            guard seen.count < Self.maxReferenceChain, seen.insert(reference).inserted, let target = target(reference) else { return nil }
            current = (target, String(reference.dropFirst()))
        }
        return current
    }

    /// The name a `$ref` gives its target: `#/components/schemas/anime` → `anime`.
    static func referenceName(_ value: JSONValue) -> String? {
        guard let reference = value["$ref"]?.string, let last = reference.split(separator: "/").last else { return nil }
        return unescape(String(last))
    }

    private func target(_ reference: String) -> JSONValue? {
        if let known = targets[reference] { return known }
        var found: JSONValue? = nil
        if reference.hasPrefix("#") {
            found = root
            for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
                let key = Self.unescape(String(token).removingPercentEncoding ?? String(token))
                if let object = found?.object {
                    found = object[key]
                } else if let array = found?.array, let index = Int(key), array.indices.contains(index) {
                    found = array[index]
                } else {
                    found = nil
                }
                if found == nil { break }
            }
        }
        targets[reference] = .some(found)
        return found
    }

    private static func unescape(_ token: String) -> String {
        token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// A pointer one key further down.
    static func pointer(_ base: String, _ key: String) -> String { JSONPointer.member(key, of: base) }
}
