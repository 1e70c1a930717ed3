import Foundation

/// The command-line parser: the input is arguments separated by NUL bytes. Parsing (and reading numbers and
/// parameter values out of what parsed) either succeeds or throws a usage error; it never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let arguments = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    let options = [
        OptionSpec("limit", help: ""), OptionSpec("format", help: ""), OptionSpec("timeout", help: ""),
        OptionSpec("verbose", short: "v", arity: .flag, help: ""), OptionSpec("fault", arity: .repeated, help: ""),
        OptionSpec("lat", help: ""), OptionSpec("help", short: "h", arity: .flag, help: ""),
    ]
    guard let parsed = try? ArgumentParser(options: options).parse(arguments) else { return 0 }
    let parameters = [
        Parameter("lat", type: .number(-90...90), help: ""), Parameter("limit", type: .integer(1...10_000), help: ""),
        Parameter("format", type: .choice(["text", "json"]), help: ""), Parameter("verbose", type: .boolean, help: ""),
    ]
    for parameter in parameters {
        if let text = parsed.value(parameter.name) { _ = try? parameter.value(from: text) }
    }
    for text in parsed.positionals {
        _ = DecimalText.number(text)
        _ = SandboxNumbers.integer(text, in: 0...100)
    }
    return 0
}
