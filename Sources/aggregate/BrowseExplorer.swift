import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateText
import Foundation

/// The interactive explorer's state and screen, without any terminal: keys in, lines out.
///
/// One level is shown per screen, as in the dictionary browser of the original tutorials: an object's keys or an
/// array's elements, each as an outline line. Enter or → steps into the selected container (or shows a scalar's
/// whole value), ← or Backspace goes back up (also above the `--path` it started at), `/` searches the keys and
/// values of the current level, `n`/`N` repeat the search, `q` quits.
struct BrowseExplorer {
    /// One screen: a node, where it is, and what is selected.
    struct Level: Equatable {
        var path: JSONPath
        var value: JSONValue
        var selection = 0
        /// The first visible row.
        var top = 0
        /// For a scalar's full-value view: the first visible line.
        var scroll = 0
    }

    /// What a key did.
    enum Outcome: Equatable {
        case stay
        /// `q`: leave normally.
        case quit
        /// Ctrl-C: leave as if interrupted.
        case interrupt
    }

    let root: JSONValue
    private(set) var levels: [Level]
    /// The search being typed after `/`, or `nil`.
    private(set) var searchInput: String?
    /// The last confirmed search, for `n` and `N`.
    private(set) var lastSearch: String?
    /// A one-line note in the status line (e.g. a failed search), until the next key.
    private(set) var message: String?

    /// Starts at the node `path` leads to in `root` (which must exist).
    init(root: JSONValue, path: JSONPath = .root) throws(JSONPathLookupError) {
        self.root = root
        let concrete = try path.normalized(in: root)
        levels = [Level(path: concrete, value: try concrete.resolve(in: root))]
    }

    var current: Level { levels[levels.count - 1] }

    /// The rows of the list part of the screen.
    static func listHeight(screenHeight: Int) -> Int { max(1, screenHeight - 2) }

    // MARK: Keys

    /// Applies `key` on a screen of `width` × `height` (for paging and scrolling).
    mutating func handle(_ key: Key, width: Int, height: Int) -> Outcome {
        let page = Self.listHeight(screenHeight: height)
        if searchInput != nil { return handleSearchInput(key, page: page) }
        message = nil
        switch key {
        case .interrupt: return .interrupt
        case .character("q"), .character("Q"): return .quit
        case .up, .character("k"): move(by: -1, page: page, width: width)
        case .down, .character("j"): move(by: 1, page: page, width: width)
        case .pageUp, .character("b"): move(by: -page, page: page, width: width)
        case .pageDown, .character(" "): move(by: page, page: page, width: width)
        case .home, .character("g"): move(by: Int.min / 2, page: page, width: width)
        case .end, .character("G"): move(by: Int.max / 2, page: page, width: width)
        case .enter, .right, .character("l"): stepIn()
        case .left, .backspace, .character("h"): stepOut(page: page)
        case .character("/"): searchInput = ""
        case .character("n"): repeatSearch(forward: true, page: page)
        case .character("N"): repeatSearch(forward: false, page: page)
        default: break
        }
        return .stay
    }

    private mutating func handleSearchInput(_ key: Key, page: Int) -> Outcome {
        guard var text = searchInput else { return .stay }
        switch key {
        case .interrupt: return .interrupt
        case .escape:
            searchInput = nil
        case .enter:
            searchInput = nil
            guard !text.isEmpty else { return .stay }
            lastSearch = text
            search(text, forward: true, includingCurrent: true, page: page)
        case .backspace:
            if text.isEmpty {
                searchInput = nil
            } else {
                text.removeLast()
                searchInput = text
            }
        case .character(let character):
            text.append(character)
            searchInput = text
        default:
            break
        }
        return .stay
    }

    private mutating func move(by delta: Int, page: Int, width: Int) {
        var level = current
        if level.value.childCount == 0 {
            let lines = Self.valueLines(level.value, width: Self.columns(width)).count
            level.scroll = min(max(0, level.scroll.addingReportingOverflow(delta).partialValue), max(0, lines - page))
        } else {
            let target = level.selection.addingReportingOverflow(delta).partialValue
            level.selection = min(max(0, target), level.value.childCount - 1)
            level.top = Self.visibleTop(selection: level.selection, top: level.top, rows: page)
        }
        levels[levels.count - 1] = level
    }

    private mutating func stepIn() {
        let level = current
        guard level.value.childCount > 0 else { return }
        let children = ChildList(level.value)
        let child = children[level.selection].value
        levels.append(Level(path: level.path.appending(children.segment(level.selection)), value: child))
    }

    private mutating func stepOut(page: Int) {
        if levels.count > 1 {
            levels.removeLast()
            return
        }
        // Above the node the explorer started at: rebuild the parent from the root, selecting where we came from.
        guard let last = current.path.segments.last else {
            message = "already at the top level"
            return
        }
        let parentPath = JSONPath(Array(current.path.segments.dropLast()))
        guard let parent = try? parentPath.resolve(in: root) else { return }
        var level = Level(path: parentPath, value: parent)
        switch (last, parent) {
        case (.index(let index), _): level.selection = index
        case (.key(let key), .object(let object)): level.selection = object.members.lastIndex { $0.key == key } ?? 0
        default: break
        }
        level.top = Self.visibleTop(selection: level.selection, top: 0, rows: page)
        levels = [level]
    }

    // MARK: Search

    private mutating func repeatSearch(forward: Bool, page: Int) {
        guard let lastSearch else {
            message = "no search yet: press / to search"
            return
        }
        search(lastSearch, forward: forward, includingCurrent: false, page: page)
    }

    /// Moves the selection to the next child (wrapping) whose key or scalar value contains `text`, ignoring case.
    private mutating func search(_ text: String, forward: Bool, includingCurrent: Bool, page: Int) {
        var level = current
        let matches = Self.matches(of: text, in: level.value)
        guard !matches.isEmpty else {
            message = "no match for \"\(text)\" here"
            return
        }
        let target: Int
        if forward {
            target = matches.first { includingCurrent ? $0 >= level.selection : $0 > level.selection } ?? matches[0]
        } else {
            target = matches.last { $0 < level.selection } ?? matches[matches.count - 1]
        }
        level.selection = target
        level.top = Self.visibleTop(selection: target, top: level.top, rows: page)
        levels[levels.count - 1] = level
        let position = (matches.firstIndex(of: target) ?? 0) + 1
        message = "match \(position) of \(matches.count) for \"\(text)\""
    }

    /// The positions of the children of `value` whose key or scalar value contains `text`, ignoring case.
    static func matches(of text: String, in value: JSONValue) -> [Int] {
        let needle = text.lowercased()
        func contains(_ haystack: String) -> Bool { haystack.lowercased().contains(needle) }
        switch value {
        case .object(let object):
            return object.members.indices.filter { position in
                let member = object.members[position]
                return contains(member.key) || member.value.scalarText.map(contains) == true
            }
        case .array(let elements):
            return elements.indices.filter { elements[$0].scalarText.map(contains) == true }
        default:
            return []
        }
    }


    // MARK: Screen

    /// The columns lines may use on a screen `width` wide: one less, so writing a line to its end never wraps.
    static func columns(_ width: Int) -> Int { max(10, width - 1) }

    private static func visibleTop(selection: Int, top: Int, rows: Int) -> Int {
        if selection < top { return selection }
        if selection >= top + rows { return selection - rows + 1 }
        return top
    }

    /// A scalar's whole value, wrapped to `width`.
    static func valueLines(_ value: JSONValue, width: Int) -> [String] {
        TextLayout.wrap(value.scalarText ?? "", width: max(10, width))
    }

    /// The screen as `height` lines of plain text, each at most `width - 1` columns (so no terminal wraps or
    /// scrolls when a line is written to its end), and the row to show in reverse video (`nil`: none).
    func screen(width: Int, height: Int) -> (lines: [String], highlighted: Int?) {
        let columns = Self.columns(width)
        let rows = Self.listHeight(screenHeight: height)
        let level = current
        var lines: [String] = []
        let isContainer = level.value.array != nil || level.value.object != nil
        let header = "\(level.path)  \(isContainer ? JSONOutline.summary(level.value) : level.value.typeName)"
        lines.append(TextLayout.pad(header, to: columns))
        var highlighted: Int?
        var position = ""
        if level.value.childCount > 0 {
            let children = ChildList(level.value)
            let top = min(level.top, max(0, children.count - 1))
            for row in 0..<rows {
                let index = top + row
                guard index < children.count else {
                    lines.append("")
                    continue
                }
                let (label, child) = children[index]
                let marker = index == level.selection ? "> " : "  "
                if index == level.selection { highlighted = lines.count }
                lines.append(TextLayout.truncate(marker + JSONOutline.line(label: label, value: child), to: columns))
            }
            position = "\(level.selection + 1)/\(children.count)"
        } else {
            let valueLines = isContainer
                ? ["(empty \(level.value.typeName))"]
                : Self.valueLines(level.value, width: columns)
            let start = min(level.scroll, max(0, valueLines.count - 1))
            for row in 0..<rows {
                let index = start + row
                lines.append(index < valueLines.count ? TextLayout.truncate(valueLines[index], to: columns) : "")
            }
            position = level.value.typeName
        }
        let status: String
        if let searchInput {
            status = "/" + searchInput
        } else if let message {
            status = message
        } else {
            status = "↑↓ move  ⏎/→ open  ←/⌫ back  / search  n/N next  q quit"
        }
        let available = max(0, columns - TextLayout.width(position) - 1)
        let left = TextLayout.pad(TextLayout.truncate(status, to: available), to: available)
        lines.append(left + " " + position)
        return (lines, highlighted)
    }
}
