@testable import AggregateCore
import AggregateText
import Foundation
import Testing

/// The redactor's expressions are compiled only for a text that may hold a match; these check that the test which
/// decides it never says "no match" where the expression would find one, so redaction is what it was.
@Suite struct SecretPatternsTests {
    static let names = Redactor.sensitiveQueryNames.sorted().map { Array($0.utf8) }
    static let secrets = ["s3cr3t+key/==", "5a9d0c1e7f3b4a6d", "pass word&<x>\"q\\", "Skip-kelvin-SS"]

    /// Texts holding the secrets in the encodings the pattern knows, near misses, and characters whose case
    /// folding is ASCII.
    static func texts(for secret: String) -> [String] {
        let scalars = Array(secret.unicodeScalars)
        func each(_ form: (Unicode.Scalar) -> String) -> String { scalars.map(form).joined() }
        let percent = each { String($0).utf8.map { String(format: "%%%02X", $0) }.joined() }
        var texts = [
            secret, secret.uppercased(), secret.lowercased(), "x \(secret) y", "x\(secret.dropLast())y",
            percent, percent.lowercased(), each { String($0).utf8.map { String(format: "%%25%02x", $0) }.joined() },
            each { "&#\($0.value);" }, each { "&#000\($0.value)" }, each { "&#x\(String($0.value, radix: 16));" },
            each { "&#X00\(String($0.value, radix: 16, uppercase: true))" }, each { String(format: "\\u%04x", $0.value) },
            each { String(format: "\\U%04X", $0.value) }, each { $0 == " " ? "+" : "\\\(Character($0))" },
            each { ["/", "\"", "\\"].contains(Character($0)) ? "\\\(Character($0))" : String($0) },
            each { SecretPatterns.htmlNames[$0].map { "&\($0.uppercased());" } ?? String($0) },
            secret.utf8.map { String(format: "%02X", $0) }.joined(), "id=" + secret.utf8.map { String(format: "%02x", $0) }.joined(),
            Data(secret.utf8).base64EncodedString(), "Bearer " + Data(("user:" + secret).utf8).base64EncodedString(),
            secret.replacingOccurrences(of: "k", with: "\u{212A}"), secret.replacingOccurrences(of: "s", with: "\u{17F}"),
            secret.replacingOccurrences(of: "SS", with: "ß"), secret.replacingOccurrences(of: "ss", with: "ẞ"),
            "café \(percent) naïve", "ordinary text with no secret at all, & % \\ + ; #", "",
        ]
        // Mixed: every other character encoded.
        texts.append(scalars.enumerated().map { $0.offset % 2 == 0 ? String($0.element) : "&#\($0.element.value);" }.joined())
        return texts
    }

    @Test(arguments: secrets) func theTestNeverMissesWhatTheExpressionsFind(secret: String) throws {
        let patterns = SecretPatterns([secret])
        let expressions = [
            try NSRegularExpression(pattern: SecretPatterns.pattern(matchingEncodingsOf: secret), options: [.caseInsensitive]),
            try NSRegularExpression(pattern: SecretPatterns.base64Pattern(of: secret)),
        ]
        for text in Self.texts(for: secret) + Self.secrets.flatMap(Self.texts(for:)) {
            for (index, expression) in expressions.enumerated() {
                let found = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
                #expect(!found || patterns.mayMatch(index, in: text), "expression \(index) of \(secret) matches \(text)")
            }
        }
    }

    @Test(arguments: secrets) func redactionIsWhatTheExpressionsAloneGive(secret: String) throws {
        let redactor = Redactor(secrets: [secret])
        for text in Self.texts(for: secret) {
            var expected = text
            for pattern in [SecretPatterns.pattern(matchingEncodingsOf: secret), SecretPatterns.base64Pattern(of: secret)] {
                let expression = try NSRegularExpression(pattern: pattern, options: pattern == SecretPatterns.base64Pattern(of: secret) ? [] : [.caseInsensitive])
                expected = expression.stringByReplacingMatches(in: expected, range: NSRange(expected.startIndex..., in: expected), withTemplate: "***")
            }
            #expect(redactor.redactSecrets(text) == expected, "\(text)")
            #expect(redactor.containsSecret(text) == (expected != text), "\(text)")
        }
    }

    @Test func aTextWithoutAnySecretCompilesNothing() {
        let patterns = SecretPatterns(["5a9d0c1e7f3b4a6d8e2c1b0a9f8e7d6c"])
        for text in ["Dune (2021)", "http://sandbox.localhost/tmdb/movie/popular?page=1&language=en-US", "Ça va, 東京"] {
            #expect(!patterns.indices.contains { patterns.mayMatch($0, in: text) }, "\(text)")
        }
        #expect(patterns.compiledCount == 0)
        let redactor = Redactor(secrets: ["5a9d0c1e7f3b4a6d8e2c1b0a9f8e7d6c"])
        #expect(redactor.redact("GET /3/movie/popular?page=1") == "GET /3/movie/popular?page=1")
        #expect(redactor.redact("key 5A9D0C1E7F3B4A6D8E2C1B0A9F8E7D6C") == "key ***")
    }

    @Test func theParameterTestFindsEveryNameThePatternMasks() {
        for name in Redactor.sensitiveQueryNames {
            for text in ["\(name)=v", "a=1&\(name.uppercased())=v", "x?\(name)=v", "p;\(name)=v"] {
                #expect(SecretPatterns.mayHoldParameter(named: Self.names, in: text), "\(text)")
                #expect(Redactor().redact(text).hasSuffix("=***"), "\(text)")
            }
        }
        #expect(!SecretPatterns.mayHoldParameter(named: Self.names, in: "monkey=banana&page=2"))
        #expect(SecretPatterns.mayHoldParameter(named: Self.names, in: "\u{212A}ey=1"))
        #expect(Redactor().redact("monkey=banana&page=2") == "monkey=banana&page=2")
    }
}
