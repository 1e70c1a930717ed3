// AggregateText: text primitives every layer shares — terminal columns of text (TextLayout), HTML to plain text
// (PlainText), byte counts for people (ByteCount), HTTP status reason phrases (HTTPReasonPhrase), exact decimals written
// without the locale (DecimalText), UTC and HTTP timestamps read and written without formatters, and the likely
// meant name of a mistyped one (DidYouMean), SHA-256 (cache keys, CSP script hashes), the redactor's expressions
// compiled only for a text that may hold a secret (SecretPatterns), a value made once on first use (Once), and
// hexadecimal digits read as numbers (HexDigit).
//
// It knows nothing of JSON, HTTP or providers.
// May import: Foundation
