import AggregateJSON
import AggregateYAML
import Foundation
import Testing

/// One test per feature of the subset, each with the exact `JSONValue` expected.
@Suite struct YAMLParserTests {
    func parse(_ text: String) throws -> JSONValue { try YAMLParser.parse(text) }

    /// The error a document gives, as the one line a user sees.
    func failure(_ text: String, limits: YAMLParser.Limits = YAMLParser.Limits()) -> String? {
        do throws(YAMLError) {
            _ = try YAMLParser.parse(text, limits: limits)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: Block collections

    @Test func blockMappingKeepsKeyOrder() throws {
        let value = try parse("zeta: 1\nalpha: two\nmiddle: [3]\n")
        #expect(value.object?.keys == ["zeta", "alpha", "middle"])
        #expect(value == ["zeta": 1, "alpha": "two", "middle": [3]])
    }

    @Test func nestedMappingsAndSequences() throws {
        let text = """
            paths:
              /users:
                get:
                  tags:
                    - users
                    - admin
                  responses:
                    "200":
                      description: OK
            """
        #expect(
            try parse(text)
                == ["paths": ["/users": ["get": ["tags": ["users", "admin"], "responses": ["200": ["description": "OK"]]]]]])
    }

    @Test func sequenceAtTheIndentOfItsKey() throws {
        #expect(try parse("tags:\n- a\n- b\nnext: 1\n") == ["tags": ["a", "b"], "next": 1])
    }

    @Test func compactNesting() throws {
        let text = "- name: a\n  value: 1\n- - x\n  - y\n-\n  k: v\n- ? explicit\n  : value\n"
        #expect(try parse(text) == [["name": "a", "value": 1], ["x", "y"], ["k": "v"], ["explicit": "value"]])
    }

    @Test func emptyValuesAreNull() throws {
        #expect(try parse("a:\nb:\n") == ["a": nil, "b": nil])
        #expect(try parse("- \n-\n") == [nil, nil])
    }

    // MARK: Flow collections

    @Test func flowCollectionsSpanLines() throws {
        let text = "enum: [\n  one, two,   # a comment\n  \"three\", {four: 4, five: [5]},\n ]\nmap: {a: 1,\n  b: 2}\n"
        #expect(try parse(text) == ["enum": ["one", "two", "three", ["four": 4, "five": [5]]], "map": ["a": 1, "b": 2]])
    }

    @Test func flowSinglePairsAndLoneKeys() throws {
        #expect(try parse("[a: 1, b]") == [["a": 1], "b"])
        #expect(try parse("{a, b: 2, \"c\":3}") == ["a": nil, "b": 2, "c": 3])
        #expect(try parse("{url: http://example.com/a:b}") == ["url": "http://example.com/a:b"])
    }

    // MARK: Scalars

    @Test func plainScalarsFoldLines() throws {
        #expect(try parse("description: A long\n  description that\n\n  spans lines\n") == ["description": "A long description that\nspans lines"])
    }

    @Test func singleQuotedEscapesItsQuote() throws {
        #expect(try parse("'it''s ''quoted'' # not a comment'") == "it's 'quoted' # not a comment")
        #expect(try parse("'folded\n  line'") == "folded line")
    }

    @Test func doubleQuotedEscapes() throws {
        #expect(try parse(#""tab\tnl\n\"q\" \\ \/ \x41\u00e9\U0001F600 \ud83d\ude00 \N\_\L\P\0\e\a\b\v\f\r""#)
            == .string("tab\tnl\n\"q\" \\ / Aé😀 😀 \u{85}\u{A0}\u{2028}\u{2029}\u{0}\u{1B}\u{7}\u{8}\u{B}\u{C}\r"))
        #expect(try parse("\"line one\n  two\n\n  three\"") == "line one two\nthree")
        #expect(try parse("\"joined\\\n   here \\\n  and\"") == "joinedhere and")
    }

    @Test func literalAndFoldedBlockScalars() throws {
        let text = """
            literal: |
              line 1
                indented
              line 3
            folded: >
              folded
              text

              new paragraph
            strip: |-
              no newline
            keep: |+
              kept

            explicit: |2
                two more spaces
            last: x
            """
        #expect(
            try parse(text)
                == [
                    "literal": "line 1\n  indented\nline 3\n", "folded": "folded text\nnew paragraph\n", "strip": "no newline",
                    "keep": "kept\n\n", "explicit": "  two more spaces\n", "last": "x",
                ])
    }

    @Test func coreSchemaResolution() throws {
        let text = """
            - null
            - ~
            -
            - Null
            - true
            - FALSE
            - yes
            - no
            - on
            - 0x1F
            - 0o17
            - +12
            - 007
            - -0
            - 1_000
            - .5
            - -1.
            - 1e3
            - +2.5E-3
            - 12:30
            - 2024-01-02
            - "123"
            - '1.5'
            - 0x
            - 123abc
            - 0xFFFFFFFFFFFFFFFFFF
            """
        #expect(
            try parse(text)
                == [
                    nil, nil, nil, nil, true, false, "yes", "no", "on", .number("31"), .number("15"), .number("12"), .number("7"),
                    .number("0"), "1_000", .number("0.5"), .number("-1.0"), .number("1e3"), .number("2.5e-3"), "12:30",
                    "2024-01-02", "123", "1.5", "0x", "123abc", .number("4722366482869645213695"),
                ])
    }

    @Test func infinityAndNaNAreErrorsNamingTheLine() {
        #expect(failure("a: 1\nmax: .inf\n") == "line 2, column 6: '.inf' has no JSON value; quote it to keep it as text")
        #expect(failure("- -.Inf") != nil)
        #expect(failure("- .NaN") != nil)
        #expect((try? parse("- '.inf'\n- -.nan\n")) == [".inf", "-.nan"])
    }

    @Test func tagsOfTheCoreSchema() throws {
        #expect(try parse("- !!str 123\n- !!int \"42\"\n- !!float 1\n- !!bool true\n- !!null ''\n- ! 12\n- !!str\n")
            == ["123", .number("42"), .number("1"), true, nil, "12", ""])
        #expect(try parse("%TAG !e! tag:yaml.org,2002:\n---\n!e!str 5\n") == "5")
        #expect(try parse("!<tag:yaml.org,2002:str> 5") == "5")
        #expect(try parse("m: !!map\n  a: 1\ns: !!seq\n- 1\n") == ["m": ["a": 1], "s": [1]])
        #expect(failure("!local x") == "line 1, column 1: unsupported tag !local: only the core schema's !!str, !!int, !!float, !!bool, !!null, !!map and !!seq")
        #expect(failure("a: !!int x") != nil)
        #expect(failure("!!str\n- a\n") != nil)
    }

    @Test func nonStringKeysBecomeTheirText() throws {
        let value = try parse("1: one\ntrue: yes\n~: nothing\n0x10: hex\n1.50: f\n")
        #expect(value.object?.keys == ["1", "true", "null", "16", "1.50"])
    }

    // MARK: Anchors, aliases, merges

    @Test func anchorsAndAliases() throws {
        let text = "base: &base {type: string, format: uri}\nother: *base\nlist:\n  - &item x\n  - *item\n"
        #expect(try parse(text) == ["base": ["type": "string", "format": "uri"], "other": ["type": "string", "format": "uri"], "list": ["x", "x"]])
    }

    @Test func mergeKeysYieldToOwnKeys() throws {
        let text = """
            defaults: &defaults
              a: 1
              b: 2
            extra: &extra
              b: 20
              c: 30
            one:
              <<: *defaults
              b: own
            many:
              <<: [*extra, *defaults]
              d: 4
            quoted:
              "<<": not a merge
            """
        let value = try parse(text)
        #expect(value["one"] == ["a": 1, "b": "own"])
        #expect(value["many"] == ["b": 20, "c": 30, "a": 1, "d": 4])
        #expect(value["quoted"] == ["<<": "not a merge"])
        #expect(failure("a: &x 1\nb:\n  <<: *x\n") == "line 3, column 3: '<<' merges a mapping or a list of mappings")
    }

    @Test func billionLaughsStopsAtTheLimit() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let message = failure(text)
        #expect(message?.contains("aliases expand to more than 1000000 nodes") == true, "\(message ?? "parsed")")
        // A smaller bound applies as given; a document below it reads.
        #expect(failure("a: &a [1, 2]\nb: [*a, *a, *a]\n", limits: YAMLParser.Limits(aliasNodes: 8)) != nil)
        #expect(failure("a: &a [1, 2]\nb: [*a, *a]\n", limits: YAMLParser.Limits(aliasNodes: 8)) == nil)
    }

    @Test func undefinedAliasIsAnError() {
        #expect(failure("a: *nope\n") == "line 1, column 4: undefined alias *nope")
        #expect(failure("a: &self [*self]\n") == "line 1, column 11: undefined alias *self")
    }

    // MARK: Documents

    @Test func directivesAndMarkers() throws {
        #expect(try parse("%YAML 1.2\n---\na: 1\n...\n") == ["a": 1])
        #expect(try parse("# only a comment\n") == nil)
        #expect(try parse("") == nil)
        #expect(try parse("--- |\n  text\n") == "text\n")
        #expect(failure("a: 1\n---\nb: 2\n") == "line 2, column 1: a second document: only one YAML document per file is supported")
        #expect(failure("a\n...\nb\n") == "line 3, column 1: a second document: only one YAML document per file is supported")
        #expect(failure("%YAML 2.0\n---\nx\n") != nil)
        #expect(failure("%YAML 1.2\nx: 1\n") != nil)
    }

    @Test func encodingAndLineBreaks() throws {
        #expect(try YAMLParser.parse(Data("\u{FEFF}a: 1\r\nb: |\r\n  x\r\n".utf8)) == ["a": 1, "b": "x\n"])
        #expect(try YAMLParser.parse(Array("a: é\n".utf8)) == ["a": "é"])
        do throws(YAMLError) {
            _ = try YAMLParser.parse(Data([0x61, 0x3A, 0x20, 0xFF]))
            Issue.record("invalid UTF-8 was read")
        } catch {
            #expect(error == YAMLError(line: 1, column: 4, reason: "the document is not valid UTF-8"))
        }
        #expect(failure("a: \u{7}\n") == "line 1, column 4: control character U+0007 is not allowed in YAML")
    }

    // MARK: Errors carry line and column

    @Test func errorsNameLineAndColumn() {
        let cases: [(String, String)] = [
            ("a:\n\tb: 1\n", "line 2, column 1: a tab cannot indent a block; use spaces"),
            ("a: 1\na: 2\n", "line 2, column 1: duplicate key 'a'"),
            ("{a: 1, a: 2}", "line 1, column 8: duplicate key 'a'"),
            ("a: \"open\n", "line 1, column 4: unterminated double-quoted scalar"),
            ("a: 'open\n", "line 1, column 4: unterminated single-quoted scalar"),
            ("a: [1, 2\n", "line 1, column 4: unterminated flow sequence"),
            ("a: {b: 1\n", "line 1, column 4: unterminated flow mapping"),
            ("a: b: c\n", "line 1, column 4: a mapping cannot start on the same line as its key; quote the value if it holds ': '"),
            ("a:\n  b:\n    c: 1\n   d: 2\n", "line 4, column 4: bad indentation: this line is indented more than the keys above it"),
            ("a:\n  b: 1\n   c: 2\n", "line 3, column 5: ': ' inside a multi-line plain scalar; quote the text, or put a key on one line"),
            ("flow: [a,\nb]\n", "line 2, column 1: this line of a flow collection must be indented more than its parent"),
            ("key: \"\\q\"\n", "line 1, column 7: unknown escape '\\q' in a double-quoted scalar"),
            ("a: |0\n", "line 1, column 5: a block scalar's indentation indicator is 1 to 9"),
            ("- a\nb: c\n", "line 2, column 1: unexpected content after the document's root node (check its indentation)"),
            ("[a]: b\n", "line 1, column 1: a flow collection as a mapping key is not supported"),
            ("a: `x`\n", "line 1, column 4: '`' cannot start a plain scalar here; quote the text"),
        ]
        for (text, expected) in cases {
            #expect(failure(text) == expected, "\(text.debugDescription)")
        }
    }

    /// A reason is one line even when the text it quotes holds line breaks (found by the yaml fuzzer: a plain key
    /// folded over a blank line holds a line break).
    @Test func quotedTextStaysOnOneLine() {
        let cases: [(String, String)] = [
            ("{\"a\\nb\": 1, \"a\\nb\": 2}", "line 1, column 13: duplicate key 'a\\nb'"),
            ("[{a\n\n b: 1, a\n\n b: 2}]", "line 3, column 8: duplicate key 'a\\nb'"),
            ("a: !!int \"1\\t2\"\n", "line 1, column 4: !!int needs an integer, not '1\\t2'"),
            ("a: !!null \"\\e\\u2028\"\n", "line 1, column 4: !!null cannot be '\\u{1B}\\u{2028}'"),
        ]
        for (text, expected) in cases {
            #expect(failure(text) == expected, "\(text.debugDescription)")
        }
    }

    @Test func columnsCountCharacters() {
        #expect(failure("é: 'ünterminated\n") == "line 1, column 4: unterminated single-quoted scalar")
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        #expect(failure(String(repeating: "[", count: 100_000))?.contains("collections nest deeper than 200 levels") == true)
        #expect(failure(String(repeating: "- ", count: 50_000) + "x")?.contains("nest deeper") == true)
        var block = ""
        for level in 0..<300 { block += String(repeating: " ", count: level) + "k:\n" }
        #expect(failure(block)?.contains("nest deeper") == true)
        #expect(failure(String(repeating: "[", count: 150) + String(repeating: "]", count: 150)) == nil)
    }
}
