public import Foundation

/// The one function that removes secrets from text before it reaches any output, error, trace or file.
///
/// It replaces every known secret value (and its percent-encoded form) with `***`, and also the values of query
/// parameters and headers that carry credentials by convention (`key`, `api_key`, `access_token`, `token`, `sig`,
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

    /// Creates a redactor for `secrets`; empty and very short values are ignored (they would mask ordinary text).
    public init(secrets: [String] = []) {
        self.secrets = Array(Set(secrets.filter { $0.count >= 4 })).sorted { $0.count > $1.count }
    }

    /// A redactor that also hides `more`.
    public func adding(_ more: [String]) -> Redactor { Redactor(secrets: secrets + more) }

    /// `text` with every secret replaced by `***`.
    public func redact(_ text: String) -> String {
        var result = text
        for secret in secrets {
            for form in Self.encodedForms(of: secret) where result.contains(form) {
                result = result.replacingOccurrences(of: form, with: Self.mask)
            }
        }
        return Self.maskSensitiveParameters(in: result)
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

    private static func encodedForms(of secret: String) -> [String] {
        var forms = [secret]
        if let query = secret.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed), query != secret {
            forms.append(query)
        }
        if let strict = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), !forms.contains(strict) {
            forms.append(strict)
        }
        return forms
    }

    private static let sensitiveParameterPattern: NSRegularExpression = {
        let names = sensitiveQueryNames.sorted().map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        // Only whole parameter names: at the start of the text or after '?', '&' or ';'.
        return try! NSRegularExpression(pattern: "(^|[?&;])(\(names))=[^&;#\\s\"'<>]+", options: [.caseInsensitive])
    }()

    /// `Bearer <token>` as in an Authorization header: a capitalised scheme and a token of RFC 6750 characters
    /// (plus `%`, as percent-encoded tokens such as X's contain), at least 8 long, so prose such as
    /// "the bearer token was rejected" is left alone.
    private static let bearerPattern = try! NSRegularExpression(pattern: "(Bearer\\s+)[A-Za-z0-9\\-._~+/%]{8,}=*")

    /// Masks `name=value` pairs for sensitive names in URLs and form bodies, and `Bearer <token>` anywhere.
    private static func maskSensitiveParameters(in text: String) -> String {
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
