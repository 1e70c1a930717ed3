import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateText
import Foundation
import Testing
@testable import aggregate

@Suite struct KeyDecoderTests {
    @Test(arguments: [
        ("\u{1B}[A", Key.up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\u{1B}OA", .up), ("\u{1B}OD", .left), ("\u{1B}[1;5A", .up),
        ("\u{1B}[H", .home), ("\u{1B}[F", .end), ("\u{1B}[1~", .home), ("\u{1B}[4~", .end), ("\u{1B}[7~", .home), ("\u{1B}[8~", .end),
        ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
        ("\r", .enter), ("\n", .enter), ("\u{7F}", .backspace), ("\u{08}", .backspace), ("\u{03}", .interrupt), ("\u{0C}", .redraw),
        ("j", .character("j")), ("/", .character("/")), ("é", .character("é")), ("日", .character("日")), ("🎉", .character("🎉")),
    ])
    func decodesOneKey(input: String, key: Key) {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array(input.utf8)) == [key])
        #expect(!decoder.hasPending)
    }

    @Test func keepsIncompleteSequencesForTheNextRead() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.feed([UInt8(ascii: "[")]) == [])
        #expect(decoder.feed([UInt8(ascii: "B"), UInt8(ascii: "j")]) == [.down, .character("j")])
        let euro = Array("€".utf8)
        #expect(decoder.feed(Array(euro.prefix(2))) == [])
        #expect(decoder.feed(Array(euro.dropFirst(2))) == [.character("€")])
    }

    @Test func aLoneEscapeIsKnownOnlyWhenFlushed() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.hasPending)
        #expect(decoder.flush() == [])
    }

    @Test func ignoresUnknownSequencesAndControls() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[200~x\u{1B}[?1;2cq\u{01}\u{1B}[Z".utf8)) == [.character("x"), .character("q")])
        #expect(decoder.feed([0xFF, UInt8(ascii: "k")]) == [.character("k")])
        #expect(decoder.feed(Array("\u{1B}jk".utf8)) == [.character("j"), .character("k")], "Alt+j is j")
    }
}

@Suite struct BrowseExplorerTests {
    let document: JSONValue = [
        "results": [
            [
                "name": "London French Meetup",
                "topics": [["name": "French"], ["name": "Language Exchange"], ["name": "Francophone"]],
                "organizer": ["id": 7730461, "name": "Camille Roussel"],
                "description": "A long description that needs more than one line to be shown in full on a narrow screen.",
            ],
        ],
        "meta": ["count": 1, "next": "https://example.org/next"],
    ]

    private func press(_ explorer: inout BrowseExplorer, _ keys: Key..., width: Int = 40, height: Int = 10) -> [BrowseExplorer.Outcome] {
        keys.map { explorer.handle($0, width: width, height: height) }
    }

    private func screen(_ explorer: BrowseExplorer, width: Int = 40, height: Int = 10) -> [String] {
        explorer.screen(width: width, height: height).lines
    }

    @Test func showsOneLevelWithTheSelectionAndAStatusLine() throws {
        let explorer = try BrowseExplorer(root: document)
        let lines = screen(explorer)
        #expect(lines.count == 10)
        #expect(lines[0] == ".  object{2}".padding(toLength: 39, withPad: " ", startingAt: 0))
        #expect(lines[1] == "> results: array[1]")
        #expect(lines[2] == "  meta: object{2}")
        #expect(lines[3...8].allSatisfy { $0.isEmpty })
        #expect(lines[9].hasPrefix("↑↓ move  ⏎/→ open  ←/⌫ back"))
        #expect(lines[9].hasSuffix(" 1/2"))
        #expect(lines.allSatisfy { TextLayout.width($0) <= 39 })
        #expect(explorer.screen(width: 40, height: 10).highlighted == 1)
    }

    @Test func movesStepsInAndOutRememberingTheSelection() throws {
        var explorer = try BrowseExplorer(root: document)
        _ = press(&explorer, .enter, .right)
        #expect(explorer.current.path.description == "results[0]")
        #expect(screen(explorer)[0].hasPrefix("results[0]  object{4}"))
        _ = press(&explorer, .down, .character("j"))
        #expect(screen(explorer)[3] == "> organizer: object{2}")
        _ = press(&explorer, .character("l"))
        #expect(screen(explorer)[0].hasPrefix("results[0].organizer  object{2}"))
        #expect(screen(explorer)[1] == "> id = 7730461")
        _ = press(&explorer, .left)
        #expect(screen(explorer)[3] == "> organizer: object{2}", "back where we came from")
        _ = press(&explorer, .up, .character("k"), .character("k"))
        #expect(explorer.current.selection == 0, "stops at the first row")
        _ = press(&explorer, .end)
        #expect(explorer.current.selection == 3)
        _ = press(&explorer, .home, .backspace, .character("h"))
        #expect(explorer.current.path == .root)
        _ = press(&explorer, .left)
        #expect(screen(explorer)[9].hasPrefix("already at the top level"))
    }

    @Test func stepsOutAboveTheStartingPath() throws {
        var explorer = try BrowseExplorer(root: document, path: JSONPath(parsing: "results.-1.topics"))
        #expect(screen(explorer)[0].hasPrefix("results[0].topics  array[3]"))
        #expect(screen(explorer)[1] == "> [0]: object{1}")
        _ = press(&explorer, .left)
        #expect(explorer.current.path.description == "results[0]")
        #expect(screen(explorer)[2] == "> topics: array[3]")
        _ = press(&explorer, .left)
        #expect(screen(explorer)[1] == "> [0]: object{4}")
    }

    @Test func showsAScalarInFullAndScrollsIt() throws {
        var explorer = try BrowseExplorer(root: document, path: JSONPath(parsing: "results[0]"))
        _ = press(&explorer, .end, .enter)
        let lines = screen(explorer, width: 30, height: 5)
        #expect(lines[0].hasPrefix("results[0].description"))
        #expect(lines[1] == "A long description that needs")
        #expect(lines[4].hasSuffix("string"))
        _ = press(&explorer, .down, .down, width: 30, height: 5)
        #expect(screen(explorer, width: 30, height: 5)[1] == "more than one line to be", "scrolled by one line, and no further than the end")
        _ = press(&explorer, .left)
        #expect(explorer.current.path.description == "results[0]")
    }

    @Test func searchesKeysAndValuesOfTheCurrentLevel() throws {
        var explorer = try BrowseExplorer(root: document, path: JSONPath(parsing: "results[0]"))
        _ = press(&explorer, .character("/"), .character("c"), .character("a"), .character("m"))
        #expect(screen(explorer)[9].hasPrefix("/cam"))
        _ = press(&explorer, .enter)
        #expect(screen(explorer)[9].hasPrefix("no match for \"cam\" here"), "values below the level are not searched")
        _ = press(&explorer, .character("/"), .character("E"), .enter)
        #expect(explorer.current.selection == 0, "the key \"name\" matches first, ignoring case")
        #expect(screen(explorer)[9].hasPrefix("match 1 of 3 for \"E\""))
        _ = press(&explorer, .character("n"))
        #expect(explorer.current.selection == 2, "organizer; topics has no e")
        _ = press(&explorer, .character("n"))
        #expect(explorer.current.selection == 3)
        #expect(screen(explorer)[9].hasPrefix("match 3 of 3"))
        _ = press(&explorer, .character("n"))
        #expect(explorer.current.selection == 0, "wraps around")
        _ = press(&explorer, .character("N"), .character("N"))
        #expect(explorer.current.selection == 2)
        _ = press(&explorer, .character("/"), .character("x"), .backspace, .backspace)
        #expect(explorer.searchInput == nil, "backspace on an empty search cancels it")
        _ = press(&explorer, .character("/"), .character("z"), .escape)
        #expect(explorer.searchInput == nil)
        #expect(explorer.lastSearch == "E")
    }

    @Test func quitsWithQAndInterruptsWithCtrlC() throws {
        var explorer = try BrowseExplorer(root: document)
        #expect(press(&explorer, .character("j")) == [.stay])
        #expect(press(&explorer, .character("q")) == [.quit])
        #expect(press(&explorer, .interrupt) == [.interrupt])
        #expect(press(&explorer, .character("/"), .interrupt) == [.stay, .interrupt])
    }

    @Test func pagesThroughLongLists() throws {
        let long = JSONValue.array((0..<100).map(JSONValue.int))
        var explorer = try BrowseExplorer(root: long)
        _ = press(&explorer, .pageDown, height: 10)
        #expect(explorer.current.selection == 8)
        _ = press(&explorer, .pageDown, height: 10)
        let lines = screen(explorer)
        #expect(lines[8] == "> [16] = 16")
        #expect(lines[9].hasSuffix("17/100"))
        _ = press(&explorer, .character("G"), height: 10)
        #expect(screen(explorer)[8] == "> [99] = 99")
        _ = press(&explorer, .pageUp, .character("b"), height: 10)
        #expect(explorer.current.selection == 83)
    }
}
