extension JSONScan {
    /// Word-at-a-time (SWAR) searches over eight bytes loaded as one `UInt64`, for the scans that dominate reading
    /// JSON: plain ASCII in strings, ASCII in UTF-8 checks, whitespace, and newlines for error positions.
    ///
    /// Each word is read little-endian, so its lowest set bit belongs to the earliest byte on every platform. The
    /// byte-at-a-time forms these must agree with are in ``JSONSimpleScan``.
    enum Words {
        private static let ones: UInt64 = 0x0101_0101_0101_0101
        private static let highs: UInt64 = 0x8080_8080_8080_8080
        private static let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

        @inline(__always)
        private static func load(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }

        /// The high bit of each byte that is zero, exactly (no carries between bytes).
        @inline(__always)
        private static func zeroBytes(_ word: UInt64) -> UInt64 { ~(((word & lows) &+ lows) | word | lows) }

        /// The high bit of each byte that is `"`, `\`, below 0x20 or above 0x7F. Bytes above the first flagged one
        /// may be flagged wrongly (borrows), so only the lowest set bit is meaningful, and that one is exact.
        @inline(__always)
        private static func specialBytes(_ word: UInt64) -> UInt64 {
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let zeroQuote = (quotes &- ones) & ~quotes
            let zeroBackslash = (backslashes &- ones) & ~backslashes
            let control = (word &- ones &* 0x20) & ~word
            return (zeroQuote | zeroBackslash | control | word) & highs
        }

        /// The offset of the first byte at or after `index` that ends a run of plain string text (`"`, `\`, a
        /// control byte or a byte above 0x7F), or `bytes.count`.
        @inline(__always)
        static func skipPlain(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
            var index = index
            let count = bytes.count
            while index + 8 <= count {
                let special = specialBytes(load(bytes, index))
                if special != 0 { return index + special.trailingZeroBitCount >> 3 }
                index += 8
            }
            return JSONSimpleScan.firstSpecial(bytes, from: index)
        }

        /// The offset of the first byte at or after `index` that ``JSONWriter`` may have to escape (`"`, `\`, a
        /// control byte, or 0xE2, the lead byte of U+2028 and U+2029), or `bytes.count`. Every test is exact per byte
        /// (no carries between bytes). ``JSONSimpleScan/firstToEscape(_:from:)`` is the byte-at-a-time reference.
        @inline(__always)
        static func skipUnescaped(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
            var index = index
            let count = bytes.count
            while index + 8 <= count {
                let found = toEscape(load(bytes, index))
                if found != 0 { return index + found.trailingZeroBitCount >> 3 }
                index += 8
            }
            guard index < count, count >= 8 else { return JSONSimpleScan.firstToEscape(bytes, from: index) }
            // The last one to seven bytes: the word that ends with them, its bytes before `index` masked out (they
            // were passed already, or lie before the search).
            let start = count - 8
            let found = toEscape(load(bytes, start)) & (~0 << ((index - start) * 8))
            return found != 0 ? start + found.trailingZeroBitCount >> 3 : count
        }

        /// The high bit of each byte of `word` that ``JSONWriter`` may have to escape, exactly.
        @inline(__always)
        private static func toEscape(_ word: UInt64) -> UInt64 {
            // A byte below 0x80 plus 0x60 reaches 0x80 exactly when it is 0x20 or more.
            let control = ~(((word & lows) &+ ones &* 0x60) | word) & highs
            return control | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C)) | zeroBytes(word ^ (ones &* 0xE2))
        }

        /// The offset of the first byte at or after `index` above 0x7F, or `bytes.count`.
        @inline(__always)
        static func skipASCII(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
            var index = index
            let count = bytes.count
            while index + 32 <= count {
                let any = load(bytes, index) | load(bytes, index + 8) | load(bytes, index + 16) | load(bytes, index + 24)
                if any & highs != 0 { break }
                index += 32
            }
            while index + 8 <= count {
                let high = load(bytes, index) & highs
                if high != 0 { return index + high.trailingZeroBitCount >> 3 }
                index += 8
            }
            while index < count, bytes[index] < 0x80 { index += 1 }
            return index
        }

        /// The offset of the first byte at or after `index` that is not JSON whitespace, or `bytes.count`.
        @inline(__always)
        static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
            var index = index
            let count = bytes.count
            while index + 8 <= count {
                let word = load(bytes, index)
                let blank = zeroBytes(word ^ (ones &* 0x20)) | zeroBytes(word ^ (ones &* 0x0A))
                    | zeroBytes(word ^ (ones &* 0x0D)) | zeroBytes(word ^ (ones &* 0x09))
                let other = ~blank & highs
                if other != 0 { return index + other.trailingZeroBitCount >> 3 }
                index += 8
            }
            return JSONSimpleScan.skipWhitespace(bytes, index)
        }

        /// How many newlines `bytes` holds, and the offset just after the last one (`nil` when there is none).
        static func newlines(_ bytes: UnsafeRawBufferPointer) -> (count: Int, lineStart: Int?) {
            var count = 0
            var lineStart: Int?
            var index = 0
            while index + 8 <= bytes.count {
                let found = zeroBytes(load(bytes, index) ^ (ones &* 0x0A))
                if found != 0 {
                    count += found.nonzeroBitCount
                    lineStart = index + (63 - found.leadingZeroBitCount) >> 3 + 1
                }
                index += 8
            }
            let tail = JSONSimpleScan.newlines(UnsafeRawBufferPointer(rebasing: bytes[index...]))
            return (count + tail.count, tail.lineStart.map { index + $0 } ?? lineStart)
        }
    }
}
