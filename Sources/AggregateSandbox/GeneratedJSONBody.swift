import AggregateHTTPServer
import AggregateSandboxKit
import Foundation

extension OutgoingResponse {
    /// An emulator's response as the server sends it.
    init(_ response: SandboxResponse) {
        self.init(status: response.status, headers: response.headers, body: .data(response.body))
    }
}

/// A valid JSON document of exactly `size` bytes, written in pieces so `size=1GiB` is never held in memory.
struct GeneratedJSONBody: StreamedResponseBody {
    /// `{}` is the smallest JSON object.
    static let minimumSize = 2
    private static let prefix = Array(#"{"padding":""#.utf8)
    private static let suffix = Array(#""}"#.utf8)

    let size: Int

    /// Sends the first `limit` bytes through `send` in chunks; false when a send fails.
    func write(limit: Int, _ send: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let end = min(limit, size)
        guard size >= Self.prefix.count + Self.suffix.count else {
            // Too small for the padding member: `{}` followed by spaces.
            let tiny = Array("{}".utf8) + Array(repeating: UInt8(ascii: " "), count: size - 2)
            return tiny.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
        }
        // Only the framing bytes differ from the padding, so one chunk of `x` is patched and restored around them.
        let framing = Array(Self.prefix.enumerated().map { (offset: $0.offset, byte: $0.element) })
            + Self.suffix.enumerated().map { (offset: size - Self.suffix.count + $0.offset, byte: $0.element) }
        let chunkSize = 64 << 10
        let padding = UInt8(ascii: "x")
        var chunk = [UInt8](repeating: padding, count: chunkSize)
        var offset = 0
        while offset < end {
            let count = min(chunkSize, end - offset)
            let patched = framing.filter { $0.offset >= offset && $0.offset < offset + count }
            for item in patched { chunk[item.offset - offset] = item.byte }
            let ok = chunk.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            for item in patched { chunk[item.offset - offset] = padding }
            if !ok { return false }
            offset += count
        }
        return true
    }
}
