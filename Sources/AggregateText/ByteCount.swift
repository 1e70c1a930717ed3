import Foundation

/// Byte counts for people.
public enum ByteCount {
    /// e.g. `32 MiB`, `1.5 KiB`, `512 bytes`.
    public static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        if bytes >= 1 << 10 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
        return "\(bytes) bytes"
    }
}
