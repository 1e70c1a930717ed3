import Foundation

/// A growable run of bytes written with plain stores and `memcpy`: the streamed `--paths` view appends millions of
/// short pieces (a path, ` = `, a value, a newline), where an array's uniqueness and capacity checks and its generic
/// copies cost more than the bytes themselves.
final class JSONByteBuffer {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes it holds.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(16, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// The bytes held, valid until the next change.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// The bytes held, as an array.
    var array: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        storage[count] = byte
        count += 1
    }

    @inline(__always)
    func append(_ piece: UnsafeRawBufferPointer) {
        guard let source = piece.baseAddress, !piece.isEmpty else { return }
        if count + piece.count > capacity { grow(to: count + piece.count) }
        UnsafeMutableRawPointer(storage + count).copyMemory(from: source, byteCount: piece.count)
        count += piece.count
    }

    func append(_ other: JSONByteBuffer) { append(other.bytes) }

    /// Appends the decimal digits of `value` (not negative), with no `String` made.
    func appendDecimal(_ value: Int) {
        let start = count
        var rest = value
        repeat {
            append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        var digits = UnsafeMutableBufferPointer(start: storage + start, count: count - start)
        digits.reverse()
    }

    /// Keeps the first `length` bytes.
    func truncate(to length: Int) { count = min(count, max(0, length)) }

    func removeAll() { count = 0 }

    private func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = moved
        capacity = larger
    }
}
