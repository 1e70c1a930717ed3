public import AggregateJSON
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
        var result = text
        for index in patterns.indices where patterns.mayMatch(index, in: result) {
            guard let pattern = patterns.expression(index) else { continue }
            result = pattern.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: NSRegularExpression.escapedTemplate(for: Self.mask))
        }
        return result
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
        patterns.indices.contains { index in
            guard patterns.mayMatch(index, in: text), let pattern = patterns.expression(index) else { return false }
            return pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
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

    /// A pattern for `secret`, to be matched in any letter case, in which every character may appear as itself or in
    /// any of its encodings, followed by the hexadecimal digits of the whole value's bytes.
    static func pattern(matchingEncodingsOf secret: String) -> String {
        var characters = ""
        for scalar in secret.unicodeScalars {
            var forms = [NSRegularExpression.escapedPattern(for: String(scalar))]
            let bytes = Array(String(scalar).utf8)
            forms.append(bytes.map { "%" + hexPattern(UInt32($0), digits: 2) }.joined())
            forms.append(bytes.map { "%25" + hexPattern(UInt32($0), digits: 2) }.joined())
            forms.append("&#0*\(scalar.value);?")
            forms.append("&#x0*\(String(scalar.value, radix: 16));?")
            if let name = htmlNames[scalar] { forms.append("&\(name);") }
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
        let hex = secret.utf8.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        return characters + "|" + hex
    }

    /// The base64 forms of `secret`, standard and URL-safe: of the whole value (with or without padding), and the
    /// run of characters that only its bytes decide when it sits at any offset inside a longer value (`Bearer …`,
    /// `user:…`), whatever comes before and after it; runs shorter than six characters (a credential of four bytes
    /// at some offsets) are left out, as they would match ordinary base64.
    static func base64Pattern(of secret: String) -> String {
        base64Forms(of: secret).map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
    }

    /// The literal forms ``base64Pattern(of:)`` matches, longest first.
    static func base64Forms(of secret: String) -> [String] {
        let bytes = Array(secret.utf8)
        let standard = Data(bytes).base64EncodedString()
        // Base64 text is ASCII, so its characters are swapped byte by byte (no bridging to NSString).
        func mapped(_ text: String, _ swap: (UInt8) -> UInt8?) -> String { String(decoding: text.utf8.compactMap(swap), as: UTF8.self) }
        var forms = [standard, mapped(standard) { $0 == UInt8(ascii: "=") ? nil : $0 }]
        for offset in 0..<3 {
            // With `offset` bytes before it in its group of three, output characters first..<last are decided by
            // the secret's bits alone: those whose six bits lie entirely inside them.
            let encoded = Array(Data(Array(repeating: 0, count: offset) + bytes).base64EncodedString())
            let first = (8 * offset + 5) / 6
            let last = (8 * (offset + bytes.count)) / 6
            if last - first >= 6 { forms.append(String(encoded[first..<last])) }
        }
        forms += forms.map { form in
            mapped(form) { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        }
        // Longest first: a padded form must win over its own unpadded prefix.
        return forms.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.sorted { $0.count > $1.count }
    }

    /// HTML's named references for the ASCII punctuation a credential may hold (HTML 5's table; `&tilde;` is not `~`).
    static let htmlNames: [Unicode.Scalar: String] = [
        "!": "excl", "\"": "quot", "#": "num", "$": "dollar", "%": "percnt", "&": "amp", "'": "apos", "(": "lpar",
        ")": "rpar", "*": "ast", "+": "plus", ",": "comma", ".": "period", "/": "sol", ":": "colon", ";": "semi",
        "<": "lt", "=": "equals", ">": "gt", "?": "quest", "@": "commat", "[": "lsqb", "\\": "bsol", "]": "rsqb",
        "^": "Hat", "_": "lowbar", "`": "grave", "{": "lcub", "|": "verbar", "}": "rcub",
    ]

    /// `value` as hexadecimal digits where each letter matches either case, e.g. `2[fF]`.
    private static func hexPattern(_ value: UInt32, digits: Int) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return (String(repeating: "0", count: max(0, digits - hex.count)) + hex).map { digit in
            digit.isLetter ? "[\(digit)\(digit.lowercased())]" : String(digit)
        }.joined()
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

    /// Masks `name=value` pairs for sensitive names in URLs and form bodies, and `Bearer <token>` anywhere.
    private static func maskSensitiveParameters(in text: String) -> String {
        // Most texts (a URL without credentials, an error line) provably hold neither; they are returned as they are
        // without compiling either pattern.
        guard SecretPatterns.mayHoldSensitiveParameter(text) || SecretPatterns.contains(text, literal: "Bearer") else { return text }
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
