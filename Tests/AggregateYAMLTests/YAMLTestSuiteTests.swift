import AggregateJSON
import AggregateTestSupport
import AggregateYAML
import Foundation
import Testing

/// Every case vendored from the YAML test suite (YAMLTestSuite/README.md says which and why): a valid case must
/// read as its `in.json`, an error case must throw. One line reports the count, which CI shows.
@Suite struct YAMLTestSuiteTests {
    static let folder = TestPaths.testTarget("AggregateYAMLTests").appendingPathComponent("YAMLTestSuite")

    /// What went wrong with one case, or `nil` when it passes.
    static func failure(of id: String) -> String? {
        let caseFolder = folder.appendingPathComponent(id)
        guard let input = FileManager.default.contents(atPath: caseFolder.appendingPathComponent("in.yaml").path) else {
            return "\(id): no in.yaml"
        }
        let expectsError = FileManager.default.fileExists(atPath: caseFolder.appendingPathComponent("error").path)
        let result: Result<JSONValue, YAMLError>
        do throws(YAMLError) { result = .success(try YAMLParser.parse(input)) } catch { result = .failure(error) }
        switch (result, expectsError) {
        case (.failure, true): return nil
        case (.success(let value), true): return "\(id): expected an error, read \(JSONWriter().string(value).prefix(120))"
        case (.failure(let error), false): return "\(id): \(error)"
        case (.success(let value), false):
            guard let data = FileManager.default.contents(atPath: caseFolder.appendingPathComponent("in.json").path) else {
                return "\(id): no in.json"
            }
            // An empty in.json is a stream without a document, which reads as null.
            let isBlank = data.allSatisfy { $0 == 0x20 || $0 == 0x0A }
            guard let expected = isBlank ? JSONValue.null : try? JSONParser().parse(data) else { return "\(id): unreadable in.json" }
            return JSONComparison.firstDifference(value, expected).map { "\(id): differs at \($0)" }
        }
    }

    @Test func everyVendoredCasePasses() throws {
        let ids = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { FileManager.default.fileExists(atPath: Self.folder.appendingPathComponent($0).appendingPathComponent("in.yaml").path) }
            .sorted()
        let errorCases = ids.filter {
            FileManager.default.fileExists(atPath: Self.folder.appendingPathComponent($0).appendingPathComponent("error").path)
        }
        let failures = ids.compactMap(Self.failure(of:))
        print("YAML test suite: \(ids.count - failures.count) of \(ids.count) cases pass (\(errorCases.count) error cases)")
        #expect(ids.count >= 100, "the vendored subset shrank to \(ids.count) cases")
        #expect(failures.isEmpty, "\(failures.count) cases fail:\n\(failures.joined(separator: "\n"))")
    }
}
