public import AggregateJSON
import AggregateText
public import Foundation

/// The one function that removes secrets from text before it reaches any output, error, trace or file.
///
/// It replaces every known secret value with `***` in every common encoding a server may echo it back in, alone
/// or mixed within one value, and in any letter case: as is, percent-encoded (any character, so full RFC 3986
/// encoding of reserved characters too) once or twice (`%252B`), `+` for a space, JSON string escapes (`\/`, `\"`,
/// `\\`, `\uXXXX`), HTML character references (named such as `&plus;`, decimal `&#77;`, hexadecimal `&#x4d;`), the
/// hexadecimal digits of its bytes, and base64 (standard or URL-safe, with or without padding) of the value alone or
/// inside a longer value, such as a whole `Authorization: Bearer …` or the `user:token` of Basic authentication. It also hides the values of query parameters and
/// headers that carry credentials by convention (`key`, `api_key`, `access_token`, `token`, `sig`,
/// `Authorization`), so even a secret we were never told about is hidden when it travels in one of those places.
public struct Redactor: Sendable, Equatable {
    /// The text that stands in for a secret.
    public static let mask = "***"

    /// Query parameter names whose values are always hidden.
    public static let sensitiveQueryNames: Set<String> = [
        "key", "api_key", "apikey", "access_token", "token", "sig", "client_secret", "password", "oauth_token",
        "oauth_signature",
    ]
    /// Header names whose values are always hidden.
    public static let sensitiveHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "x-api-key", "cookie", "set-cookie",
    ]

    /// Secret values to hide wherever they appear.
    public private(set) var secrets: [String]
    /// Per secret, its textual encodings (matched in any letter case) and then its base64 forms (matched exactly,
    /// since base64 is case-sensitive); compiled once per redactor, on the first text that may hold a secret (most
    /// texts provably hold none, see ``SecretPatterns``), not per call.
    private let patterns: SecretPatterns

    /// Creates a redactor for `secrets`; empty and very short values are ignored (they would mask ordinary text).
    public init(secrets: [String] = []) {
        self.secrets = Array(Set(secrets.filter { $0.count >= 4 })).sorted { $0.count > $1.count }
        self.patterns = SecretPatterns(self.secrets)
    }

    public static func == (lhs: Redactor, rhs: Redactor) -> Bool { lhs.secrets == rhs.secrets }

    /// A redactor that also hides `more`.
    public func adding(_ more: [String]) -> Redactor { Redactor(secrets: secrets + more) }

    /// `text` with every secret replaced by `***`, and the values of conventionally sensitive parameters and
    /// `Bearer` tokens too.
    public func redact(_ text: String) -> String { Self.maskSensitiveParameters(in: redactSecrets(text)) }

    /// `text` with every known secret replaced by `***`, and nothing else touched: for data such as result items,
    /// where a `key=` in a URL is content, not a credential of ours.
    public func redactSecrets(_ text: String) -> String {
        patterns.replacingMatches(in: text, with: Self.mask)
    }

    /// Whether this redactor knows any secret (with none, ``redactSecrets(_:)`` changes nothing).
    public var hasSecrets: Bool { !secrets.isEmpty }

    /// `body` with every secret replaced by `***`: as text when it is UTF-8; otherwise byte for byte, so a secret
    /// inside a binary or mis-encoded body (a cassette keeps those as base64) is hidden too.
    public func redact(_ body: Data) -> Data {
        if let text = String(data: body, encoding: .utf8) { return Data(redact(text).utf8) }
        // Latin-1 maps each byte to one scalar and back, so the bytes around a secret survive unchanged. A secret
        // that is not ASCII appears there as its UTF-8 bytes, each read as one Latin-1 character.
        func latin1(_ bytes: some Sequence<UInt8>) -> String { String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })) }
        let bytewise = adding(secrets.map { latin1($0.utf8) })
        return Data(bytewise.redact(latin1(body)).unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
    }

    /// Whether `text` holds a known secret in any encoding (used to drop credential-bearing query parameters).
    public func containsSecret(_ text: String) -> Bool {
        patterns.matches(text)
    }

    /// A header value as it may be shown: hidden entirely for credential headers.
    public func redactHeader(name: String, value: String) -> String {
        if Self.sensitiveHeaderNames.contains(name.lowercased()) {
            // Keep the scheme ("Bearer") so traces still say which kind of credential was sent.
            if let space = value.firstIndex(of: " ") { return "\(value[..<space]) \(Self.mask)" }
            return Self.mask
        }
        return redact(value)
    }

    // Both patterns are constants (the names are escaped), so they always compile; were one ever not to, the
    // masking fails closed (the whole text is masked) rather than letting a secret through.
    private static let sensitiveParameterPattern: NSRegularExpression? = {
        let names = sensitiveQueryNames.sorted().map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        // Only whole parameter names: at the start of the text or after '?', '&' or ';'.
        return try? NSRegularExpression(pattern: "(^|[?&;])(\(names))=[^&;#\\s\"'<>]+", options: [.caseInsensitive])
    }()

    /// `Bearer <token>` as in an Authorization header: a capitalised scheme and a token of RFC 6750 characters
    /// (plus `%`, as percent-encoded tokens such as X's contain), at least 8 long, so prose such as
    /// "the bearer token was rejected" is left alone.
    private static let bearerPattern = try? NSRegularExpression(pattern: "(Bearer\\s+)[A-Za-z0-9\\-._~+/%]{8,}=*")

    private static let sensitiveNames = sensitiveQueryNames.sorted().map { Array($0.lowercased().utf8) }

    /// Masks `name=value` pairs for sensitive names in URLs and form bodies, and `Bearer <token>` anywhere.
    private static func maskSensitiveParameters(in text: String) -> String {
        // Most texts (a URL without credentials, an error line) provably hold neither; they are returned as they are
        // without compiling either pattern.
        guard SecretPatterns.mayHoldParameter(named: sensitiveNames, in: text) || SecretPatterns.contains(text, literal: "Bearer") else { return text }
        guard let sensitiveParameterPattern, let bearerPattern else { return mask }
        let whole = NSRange(text.startIndex..., in: text)
        let withoutParameters = sensitiveParameterPattern.stringByReplacingMatches(
            in: text, range: whole, withTemplate: "$1$2=\(mask)")
        return bearerPattern.stringByReplacingMatches(
            in: withoutParameters, range: NSRange(withoutParameters.startIndex..., in: withoutParameters),
            withTemplate: "$1\(mask)")
    }
}

extension CharacterSet {
    /// Characters left as they are in a query parameter value.
    public static let urlQueryValueAllowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.remove(charactersIn: "&=+?#;")
        return set
    }()
}

extension Redactor {
    /// `item` with every known secret in its text masked: a server may echo a credential into a successful answer,
    /// and items reach every output (text, JSON, CSV, compare, the SQL and serve layers) as `--raw` bodies do.
    public func redactSecrets(in item: Item) -> Item {
        guard hasSecrets else { return item }
        var item = item
        item.id = redactSecrets(item.id)
        item.title = redactSecrets(item.title)
        item.subtitle = item.subtitle.map(redactSecrets)
        item.summary = item.summary.map(redactSecrets)
        item.url = item.url.map(redactSecrets)
        item.imageUrl = item.imageUrl.map(redactSecrets)
        item.author = item.author.map(redactSecrets)
        if var location = item.location {
            location.city = location.city.map(redactSecrets)
            location.country = location.country.map(redactSecrets)
            item.location = location
        }
        item.tags = item.tags.map(redactSecrets)
        item.extra = JSONObject(item.extra.members.map { JSONObject.Member(redactSecrets($0.key), redactSecrets(in: $0.value)) })
        return item
    }

    /// `value` with every known secret masked in its strings and keys.
    public func redactSecrets(in value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(redactSecrets(text))
        case .array(let elements): return .array(elements.map { redactSecrets(in: $0) })
        case .object(let object): return .object(JSONObject(object.members.map { JSONObject.Member(redactSecrets($0.key), redactSecrets(in: $0.value)) }))
        case .number, .bool, .null: return value
        }
    }
}

