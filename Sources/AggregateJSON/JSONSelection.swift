#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The members of objects that ``JSONEventReader/readValue(startingWith:selecting:)`` keeps, for a caller that needs
/// a few fields of large records: the others are skipped without being decoded or stored. A selection applies to an
/// object's members and, in an array, to each element.
///
/// ```swift
/// let tweet = JSONSelection(["id_str": .whole, "user": .selection(JSONSelection(["screen_name": .whole]))])
/// ```
public final class JSONSelection: Sendable {
    /// What is kept of one member's value.
    public enum Member: Sendable {
        /// All of it.
        case whole
        /// Its objects' members that this selection names.
        case selection(JSONSelection)
        /// The members that the selection holding this one names, for shapes that nest in themselves (a retweet's
        /// post inside a post).
        case same
    }

    /// A ``Member`` as the reader uses it: an inner selection by an unowned reference, so that looking members up
    /// and stacking them costs no reference counting. The selections it names are held by ``members``.
    enum Kept {
        case whole
        case inner(Unmanaged<JSONSelection>)
        case same

        init(_ member: Member) {
            switch member {
            case .whole: self = .whole
            case .selection(let inner): self = .inner(Unmanaged.passUnretained(inner))
            case .same: self = .same
            }
        }
    }

    let members: [String: Member]
    /// The members whose keys are ASCII, by key length then key bytes: a key that arrives as plain ASCII is looked up
    /// from its bytes, and the keys of skipped members never become strings. (For ASCII keys, byte equality is
    /// string equality.)
    private let asciiByLength: [[(key: [UInt8], kept: Kept)]]
    /// Whether some key is not ASCII: a `String` may then equal it canonically with other bytes, so lookups go
    /// through ``members``.
    private let hasNonASCIIKey: Bool

    /// Keeps the named members, each as its ``Member`` says.
    public init(_ members: [String: Member]) {
        self.members = members
        var byLength: [[(key: [UInt8], kept: Kept)]] = []
        var hasNonASCIIKey = false
        for (key, member) in members {
            let bytes = Array(key.utf8)
            guard bytes.allSatisfy({ $0 < 0x80 }) else {
                hasNonASCIIKey = true
                continue
            }
            while byLength.count <= bytes.count { byLength.append([]) }
            byLength[bytes.count].append((bytes, Kept(member)))
        }
        asciiByLength = byLength
        self.hasNonASCIIKey = hasNonASCIIKey
    }

    /// What is kept of the member with a key of plain ASCII bytes (without escapes): `nil` when the selection does
    /// not keep it; `decided` is false when bytes cannot tell (``hasNonASCIIKey``), and the key's text must be
    /// looked up in ``members``.
    func kept(asciiKey key: UnsafeRawBufferPointer) -> (kept: Kept?, decided: Bool) {
        guard !hasNonASCIIKey else { return (nil, false) }
        guard key.count < asciiByLength.count else { return (nil, true) }
        for entry in asciiByLength[key.count] where entry.key.withUnsafeBytes({ Self.sameBytes($0, key) }) {
            return (entry.kept, true)
        }
        return (nil, true)
    }

    /// Whether `left` and `right` hold the same bytes, by `memcmp` (the generic `elementsEqual` goes a byte at a
    /// time through an iterator).
    private static func sameBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }  // both empty
        return memcmp(leftBase, rightBase, left.count) == 0
    }
}

/// A stack whose elements are moved, never copied, into the arrays made from its top: the values of a container
/// being read wait here until it closes, and building it then costs no reference counting per element. Elements
/// left when a read fails are released by ``removeAll()`` or when the stack goes.
final class MovingStack<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func push(_ element: consuming Element) {
        if count == capacity { base = doubled(base, count: count, capacity: &capacity) }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Moves out the top element.
    func pop() -> Element {
        count -= 1
        return (base + count).move()
    }

    /// The elements from `start` to the top, moved out in order; the stack is left `start` high.
    func popArray(from start: Int) -> [Element] {
        // Not `Array(unsafeUninitializedCapacity:)`: it allocates through the standard library's unspecialized
        // code, which looks the storage class's generic metadata up again for every array (4% of reading a Twitter
        // archive). `reserveCapacity` allocates in code specialized here.
        var result: [Element] = []
        result.reserveCapacity(count - start)
        for index in start..<count { result.append((base + index).move()) }
        count = start
        return result
    }

    func removeAll() {
        base.deinitialize(count: count)
        count = 0
    }
}

/// A buffer of twice `capacity` holding the `count` elements of `buffer`, moved; `buffer` is deallocated and
/// `capacity` doubled. How the reader's stacks (``MovingStack``, its open containers) grow.
func doubled<Element>(_ buffer: UnsafeMutablePointer<Element>, count: Int, capacity: inout Int) -> UnsafeMutablePointer<Element> {
    let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
    larger.moveInitialize(from: buffer, count: count)
    buffer.deallocate()
    capacity *= 2
    return larger
}
