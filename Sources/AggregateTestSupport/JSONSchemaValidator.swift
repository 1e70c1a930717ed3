import Foundation

extension OptionalTool {
    /// Python's `jsonschema`, the validator CI's schema checks use.
    public static let jsonschema = OptionalTool(
        name: "jsonschema", install: "pip install jsonschema, and point AGGREGATE_PYTHON at that python", isPythonModule: true)
}

/// Validates JSON files against a JSON Schema (2020-12) with Python's `jsonschema`, the validator CI uses, so a test
/// checks a document the way CI does. The schema itself is checked first.
public enum JSONSchemaValidator {
    /// The validator's complaints about `files` against `schema` (paths), or `nil` when every file is valid.
    /// - Parameters:
    ///   - python: the interpreter that can import `jsonschema` (``OptionalTool/jsonschema``'s path).
    ///   - checkFormats: also check `format` keywords (dates, URIs), as CI's cassette check does.
    public static func problems(python: String, schema: String, files: [String], checkFormats: Bool = false) throws -> String? {
        let checker = checkFormats ? ", format_checker=jsonschema.FormatChecker()" : ""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c",
            "import json, sys, jsonschema; s = json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(s); "
                + "[jsonschema.Draft202012Validator(s\(checker)).validate(json.load(open(f))) for f in sys.argv[2:]]",
            schema,
        ] + files
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : message
    }
}
