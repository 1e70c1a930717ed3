import Foundation

/// The redactor over any credential and any text: it never traps, and a credential written into text in any of the
/// forms a server echoes it back in (as is, either letter case, percent-encoded, HTML references, base64 alone or
/// inside a longer value) is found and masked wherever it sits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedactor(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    // The first byte picks the credential's length; the next bytes its characters, from what tokens use.
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=:-._~%&;#é")
    let length = 4 + Int(bytes[0]) % 29
    let secretBytes = bytes.dropFirst().prefix(length)
    guard secretBytes.count == length else { return 0 }
    let secret = String(secretBytes.map { alphabet[Int($0) % alphabet.count] })
    // The rest is any text around it, and the whole input as bytes.
    let rest = Array(bytes.dropFirst(1 + length))
    let text = String(decoding: rest, as: UTF8.self)
    let redactor = Redactor(secrets: [secret])
    _ = redactor.redact(text)
    _ = redactor.redact(Data(bytes))
    _ = redactor.containsSecret(text)

    // Between characters no form uses, so the surroundings cannot complete or hide a match.
    let before = " <" + String(text.unicodeScalars.filter { $0 == " " || $0 == "\n" }.prefix(3)) + "\""
    let after = "\"> "
    let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    var forms = [secret, secret.lowercased(), secret.uppercased()]
    if let percent = secret.addingPercentEncoding(withAllowedCharacters: unreserved) { forms += [percent, percent.lowercased()] }
    forms.append(secret.unicodeScalars.map { "&#\($0.value);" }.joined())
    forms.append(secret.unicodeScalars.map { "&#x\(String($0.value, radix: 16));" }.joined())
    forms.append(Data(secret.utf8).base64EncodedString())
    for form in forms {
        let written = before + form + after
        guard redactor.containsSecret(written) else { fatalError("not found: \(form) for \(secret)") }
        let redacted = redactor.redact(written)
        guard !redacted.contains(form), redacted.contains(Redactor.mask) else { fatalError("not masked: \(form) for \(secret) -> \(redacted)") }
    }
    // Base64 of a longer value holding it, at the offset the input's length gives (a 4-byte credential leaves too
    // few characters that are its own at some offsets to be told from other base64).
    guard secret.utf8.count >= 5 else { return 0 }
    let prefix = Array(rest.prefix(rest.count % 5))
    let encoded = Data(prefix + Array(secret.utf8) + Array(rest.suffix(rest.count % 3))).base64EncodedString()
    guard redactor.redactSecrets(encoded).contains(Redactor.mask) else { fatalError("base64 inside a value not masked: \(encoded) for \(secret)") }
    return 0
}
