package import Foundation

/// FNV-1a (64 bits): a fast hash to tell byte strings apart (entry checksums, the sandbox's ETags); not for secrets.
package enum FNV1a {
    /// The hash of `data` as lower-case hexadecimal.
    package static func hex(_ data: Data) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}
