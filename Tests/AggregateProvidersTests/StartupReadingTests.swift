import AggregateCore
@testable import AggregateDefinitions
import AggregateJSON
import AggregateProviders
import Foundation
@testable import TMDbSandbox
import Testing

/// What a short run reads instead of parsing whole documents gives what the whole parse gives (issue #24, start-up).
@Suite struct StartupReadingTests {
    @Test func theTMDbListFieldsAreTheListFormsOfTheWholeCatalogue() throws {
        let fields = try #require(TMDbSandbox.listFields())
        #expect(fields.count == TMDbSandbox.movies.count)
        #expect(fields.map(TMDbSandbox.listResult) == TMDbSandbox.movies.map(TMDbSandbox.listResult))
        #expect(TMDbSandbox.index.map(\.listForm) == TMDbSandbox.movies.map(TMDbSandbox.listResult))
        #expect(TMDbSandbox.index.map(\.popularity) == TMDbSandbox.movies.map { $0["popularity"]?.decimal ?? 0 })
    }

    @Test func everyBuiltInDefinitionIsNamedByItsTopLevelName() throws {
        for (folder, json) in builtInDefinitions {
            let parsed = try JSONParser().parse(Data(json.utf8))["name"]?.string
            #expect(DefinitionCatalog.topLevelName(of: json) == parsed, "\(folder)")
        }
        #expect(DefinitionCatalog.topLevelName(of: #"{"a": {"name": "inner"}, "b": [1, {"name": 2}], "name": "outer", "c": 1}"#) == "outer")
        #expect(DefinitionCatalog.topLevelName(of: #"{"name": 7}"#) == nil)
        #expect(DefinitionCatalog.topLevelName(of: #"{"a": [1, }"#) == nil)
        #expect(DefinitionCatalog.topLevelName(of: #"["name"]"#) == nil)
    }

    @Test func everySwiftProviderStatesItsDescriptorsName() {
        for type in allProviders {
            #expect(type.providerName == type.descriptor.name)
        }
    }

    @Test func aDecimalWithoutALocaleIsTheDecimal() throws {
        for text in ["0", "-0", "7.8", "85.214", "-1.5e+10", "1E-3", "123456789012345678901234567890.125", "18342", "9999999999999999.5"] {
            let value = try JSONParser().parse(text)
            #expect(value.decimalWithoutLocale == value.decimal, "\(text)")
            #expect(value.decimalWithoutLocale?.description == value.decimal.map { JSONNumberFormat.text(for: $0) }, "\(text)")
        }
        #expect(JSONValue.string(" 12.5 ").decimalWithoutLocale == JSONValue.string(" 12.5 ").decimal)
        #expect(JSONValue.null.decimalWithoutLocale == nil)
    }
}
