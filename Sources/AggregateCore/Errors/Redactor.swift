public import Foundation

/// The one function that removes secrets from text before it reaches any output, error, trace or file.
///
/// It replaces every known secret value with `***` in every common encoding a server may echo it back in, alone
/// or mixed within one value: as is, percent-encoded in either case (any character, so full RFC 3986 encoding of
/// reserved characters too), `+` for a space, JSON string escapes (`\/`, `\"`, `\\`, `\uXXXX`), and base64 of the
/// whole value (standard or URL-safe, with or without padding). It also hides the values of query parameters and
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
    /// One pattern per secret matching all its encodings; built once per redactor, not per call.
    private let patterns: [NSRegularExpression]

    /// Creates a redactor for `secrets`; empty and very short values are ignored (they would mask ordinary text).
    public init(secrets: [String] = []) {
        self.secrets = Array(Set(secrets.filter { $0.count >= 4 })).sorted { $0.count > $1.count }
        self.patterns = self.secrets.compactMap { try? NSRegularExpression(pattern: Self.pattern(matchingEncodingsOf: $0)) }
    }

    public static func == (lhs: Redactor, rhs: Redactor) -> Bool { lhs.secrets == rhs.secrets }

    /// A redactor that also hides `more`.
    public func adding(_ more: [String]) -> Redactor { Redactor(secrets: secrets + more) }

    /// `text` with every secret replaced by `***`.
    public func redact(_ text: String) -> String {
        var result = text
        for pattern in patterns {
            result = pattern.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: NSRegularExpression.escapedTemplate(for: Self.mask))
        }
        return Self.maskSensitiveParameters(in: result)
    }

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
        patterns.contains { $0.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil }
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

    /// A pattern for `secret` in which every character may appear as itself or in any of its encodings, followed
    /// by the literal base64 forms of the whole value.
    static func pattern(matchingEncodingsOf secret: String) -> String {
        var characters = ""
        for scalar in secret.unicodeScalars {
            var forms = [NSRegularExpression.escapedPattern(for: String(scalar))]
            forms.append(String(scalar).utf8.map { "%" + hexPattern(UInt32($0), digits: 2) }.joined())
            if scalar == " " { forms.append("\\+") }
            switch scalar {
            case "/": forms.append("\\\\/")
            case "\"": forms.append("\\\\\"")
            case "\\": forms.append("\\\\\\\\")
            default: break
            }
            forms.append(String(scalar).utf16.map { "\\\\u" + hexPattern(UInt32($0), digits: 4) }.joined())
            characters += "(?:" + forms.joined(separator: "|") + ")"
        }
        let data = Data(secret.utf8)
        let standard = data.base64EncodedString()
        let unpadded = standard.replacingOccurrences(of: "=", with: "")
        let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        // Longest first: a padded form must win over its own unpadded prefix.
        let base64 = [standard, unpadded, urlSafe].reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            .map(NSRegularExpression.escapedPattern(for:))
        return ([characters] + base64).joined(separator: "|")
    }

    /// `value` as hexadecimal digits where each letter matches either case, e.g. `2[fF]`.
    private static func hexPattern(_ value: UInt32, digits: Int) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return (String(repeating: "0", count: max(0, digits - hex.count)) + hex).map { digit in
            digit.isLetter ? "[\(digit)\(digit.lowercased())]" : String(digit)
        }.joined()
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
