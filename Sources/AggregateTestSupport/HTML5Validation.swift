import Foundation

/// Checks HTML pages with Python's `html5lib` in strict mode (``OptionalTool/html5lib``): the compare report and the
/// serve web pages must parse as HTML5 without a single parse error.
public enum HTML5Validation {
    /// The parse errors of `html`, or `nil` when it is valid HTML5.
    /// - Throws: when html5lib is not importable, or the interpreter cannot be run.
    public static func problems(in html: String) throws -> String? {
        guard let python = OptionalTool.html5lib.path else {
            throw CocoaError(.executableNotLoadable, userInfo: [NSLocalizedDescriptionKey: "html5lib is required here but not importable"])
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-html5-\(UUID().uuidString).html")
        try html.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", """
            import sys, html5lib
            parser = html5lib.HTMLParser(strict=True)
            try:
                parser.parse(open(sys.argv[1], 'rb'))
            except html5lib.html5parser.ParseError as error:
                print('invalid HTML5:', error, parser.errors[:3]); sys.exit(1)
            """, file.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : text
    }
}
