import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The sandbox's request reader over a real socket pair: the input is what a client sent before closing, and
/// reading every request out of it must end (request, rejection or end of stream) without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size <= 256 << 10 else { return 0 }  // the socket buffer must hold it all: the writer never blocks
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fatalError("socketpair failed") }
    var buffer = Int32(1 << 20)
    _ = setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
    _ = setsockopt(pair[0], SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
    var offset = 0
    while offset < size {
        let sent = send(pair[1], data + offset, size - offset, Int32(MSG_NOSIGNAL))
        if sent <= 0 { break }
        offset += sent
    }
    shutdown(pair[1], Int32(SHUT_WR))
    let wake = try! WakeSignal()
    defer {
        wake.close()
        close(pair[0])
        close(pair[1])
    }
    let reader = RequestReader(
        descriptor: pair[0], wake: wake, idleTimeout: 0.2, headTimeout: 0.2, keepAliveTimeout: 0.2,
        maximumBodyBytes: 1 << 20, sendContinue: { true })
    for _ in 0..<64 {
        switch reader.next() {
        case .request(let request):
            _ = request.path
            if !request.keepAlive { return 0 }
        case .finished, .rejected:
            return 0
        }
    }
    return 0
}
