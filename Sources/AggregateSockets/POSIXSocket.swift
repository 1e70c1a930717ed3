import AggregateCore
package import Foundation

#if canImport(Glibc)
import Glibc
private let streamSocketType = Int32(SOCK_STREAM.rawValue)
// Linux has no per-socket SIGPIPE switch, so every send asks for no signal instead.
private let sendFlags = Int32(MSG_NOSIGNAL)
/// `POLLRDHUP` (not exported to Swift): the peer ended its side, reported without waking for data it sent.
private let peerHangUpEvent: Int16 = 0x2000
/// `connect(2)`, named apart from ``POSIXSocket/connect(host:port:timeout:)``.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    Glibc.connect(descriptor, address, length)
}
#elseif canImport(Darwin)
import Darwin
private let streamSocketType = SOCK_STREAM
private let sendFlags: Int32 = 0
/// Darwin has no `POLLRDHUP`: readability is polled and a peek tells end of stream from data.
private let peerHangUpEvent = Int16(POLLIN)
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    Darwin.connect(descriptor, address, length)
}
#endif

/// Thin wrappers over the POSIX socket calls the server needs; every function retries `EINTR`.
package enum POSIXSocket {
    /// Binds and listens on `host:port`, returning the descriptor and the port actually bound.
    /// - Throws: ``AggregateError`` of kind `config`, with advice when the port is taken.
    package static func openListener(host: String, port: Int) throws -> (descriptor: Int32, port: Int) {
        guard (0...65535).contains(port) else {
            throw AggregateError(.config, "port \(port) is out of range; pass --port between 0 and 65535")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocketType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw AggregateError(.config, "cannot listen on '\(host)': \(reason); pass --host with a local address")
        }
        defer { freeaddrinfo(first) }

        var lastError: Int32 = 0
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard descriptor >= 0 else {
                lastError = errno
                continue
            }
            setCloseOnExec(descriptor)
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(descriptor, 128) == 0 {
                // Non-blocking so a client that resets between poll() and accept() cannot stall the accept loop.
                setNonBlocking(descriptor, true)
                return (descriptor, boundPort(descriptor) ?? port)
            }
            lastError = errno
            closeDescriptor(descriptor)
        }
        if lastError == EADDRINUSE {
            throw AggregateError(.config, "port \(port) is already in use; pass --port N (or --port 0 for any free port)")
        }
        if lastError == EACCES {
            throw AggregateError(.config, "no permission to listen on port \(port); pass --port N above 1023")
        }
        throw AggregateError(.config, "cannot listen on \(host):\(port): \(errorText(lastError))")
    }

    /// What one `accept` call produced.
    package enum Accepted {
        case connection(descriptor: Int32, peer: String)
        /// No connection is waiting (or one vanished before it was accepted).
        case none
        /// The process is out of descriptors or memory; retrying at once would spin.
        case exhausted
    }

    /// Accepts one pending connection.
    package static func acceptConnection(_ listener: Int32) -> Accepted {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var descriptor: Int32
        repeat {
            descriptor = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            switch errno {
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .exhausted
            default: return .none
            }
        }
        setCloseOnExec(descriptor)
        // Darwin hands out accepted sockets that inherit O_NONBLOCK; connections use blocking I/O after poll().
        setNonBlocking(descriptor, false)
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return .connection(descriptor: descriptor, peer: address(of: &storage))
    }

    /// Makes a blocked `send` give up after `seconds`, so a client that stops reading cannot hold a thread forever.
    package static func setSendTimeout(_ descriptor: Int32, seconds: TimeInterval) {
        var limit = timeval()
        limit.tv_sec = .init(max(1, seconds.rounded(.up)))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends every byte; returns false when the peer is gone or the send timed out.
    package static func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var pointer = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            let sent = send(descriptor, pointer, remaining, sendFlags)
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            pointer += sent
            remaining -= sent
        }
        return true
    }

    /// Sends every byte of `data`.
    package static func sendAll(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { sendAll(descriptor, $0) }
    }

    /// The size of the pieces a response is sent in; each must be taken by the client within the stall timeout.
    static let sendPiece = 64 << 10

    /// Sends every byte, one piece of at most ``sendPiece`` bytes at a time, each of which the client must take
    /// within `stallTimeout`: a client that stops reading (or reads a trickle) ends the response instead of holding
    /// its connection slot, and so does a peer that is gone or a server that is stopping. False in each of those cases.
    package static func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, stallTimeout: TimeInterval, wake: WakeSignal) -> Bool {
        guard var pointer = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            let piece = min(remaining, sendPiece)
            let deadline = Date().addingTimeInterval(stallTimeout)
            var pieceLeft = piece
            while pieceLeft > 0 {
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else { return false }
                var descriptors = [
                    pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
                ]
                let result = poll(&descriptors, 2, Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if result == 0 { continue }
                if descriptors[0].revents != 0 { return false }
                if descriptors[1].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
                guard descriptors[1].revents & Int16(POLLOUT) != 0 else { continue }
                let sent = send(descriptor, pointer, pieceLeft, sendFlags | Int32(MSG_DONTWAIT))
                if sent < 0 {
                    if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                    return false
                }
                pointer += sent
                pieceLeft -= sent
            }
            remaining -= piece
        }
        return true
    }

    /// ``sendAll(_:_:stallTimeout:wake:)`` for `data`.
    package static func sendAll(_ descriptor: Int32, _ data: Data, stallTimeout: TimeInterval, wake: WakeSignal) -> Bool {
        data.withUnsafeBytes { sendAll(descriptor, $0, stallTimeout: stallTimeout, wake: wake) }
    }

    /// Sends without waiting; for the short refusal written from the accept loop.
    package static func sendNow(_ descriptor: Int32, _ data: Data) {
        _ = data.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, sendFlags | Int32(MSG_DONTWAIT)) }
    }

    /// Reads what is available into `buffer` (up to its capacity); 0 means the peer closed, -1 an error.
    package static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            return count
        }
    }

    /// Ends both directions at once, which wakes a thread blocked in `send` on that socket.
    package static func shutdownBoth(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Ends our side and reads what the client still sends (up to a second or 16 MiB) before the caller closes.
    ///
    /// Closing a socket with unread input makes the kernel send a reset, which can destroy a 413 or 400 the
    /// client has not read yet; draining first lets the client see the response and then end of stream.
    package static func finish(_ descriptor: Int32, wake: WakeSignal) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        let deadline = Date().addingTimeInterval(1)
        var drained = 0
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        while drained < 16 << 20 {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, waitReadable(descriptor, wake: wake, timeout: remaining) == .readable else { return }
            let count = scratch.withUnsafeMutableBytes { receive(descriptor, into: $0) }
            guard count > 0 else { return }
            drained += count
        }
    }

    package static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    package static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    // MARK: - Connecting

    /// Why a connection could not be made, in words for a one-line error (`connection refused`, `timed out`).
    package struct ConnectError: Error, Sendable, Equatable {
        /// What went wrong, e.g. `connection refused`.
        package var reason: String
    }

    /// Opens a TCP connection to `host:port`, trying each address the name resolves to, and gives up on one after
    /// `timeout` seconds (a blocking `connect` to a filtered port would wait for minutes). The descriptor returned is
    /// blocking and close-on-exec; on Darwin it raises no `SIGPIPE`.
    /// - Throws: ``ConnectError`` naming the last reason (`connection refused`, `timed out`, a resolver message).
    package static func connect(host: String, port: Int, timeout: TimeInterval) throws(ConnectError) -> Int32 {
        guard (1...65535).contains(port) else { throw ConnectError(reason: "port \(port) is out of range") }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocketType
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw ConnectError(reason: String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(first) }
        var reason = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard descriptor >= 0 else {
                reason = errorText(errno)
                continue
            }
            setCloseOnExec(descriptor)
            setNonBlocking(descriptor, true)
            var result = systemConnect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result != 0, errno == EINPROGRESS || errno == EINTR {
                result = finishConnect(descriptor, timeout: timeout)
            } else if result != 0 {
                result = errno
            }
            if result == 0 {
                setNonBlocking(descriptor, false)
                var one: Int32 = 1
                _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                #if canImport(Darwin)
                _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
                #endif
                return descriptor
            }
            reason = result == ETIMEDOUT ? "timed out after \(String(format: "%g", timeout)) s" : errorText(result).lowercased()
            closeDescriptor(descriptor)
        }
        throw ConnectError(reason: reason)
    }

    /// Waits for a non-blocking `connect` to end; returns 0 or the `errno` it ended with (`ETIMEDOUT` on timeout).
    private static func finishConnect(_ descriptor: Int32, timeout: TimeInterval) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return ETIMEDOUT }
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let result = poll(&entry, 1, Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up)))
            if result < 0, errno == EINTR { continue }
            if result < 0 { return errno }
            if result == 0 { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return errno }
            return failure
        }
    }

    /// Waits until `descriptor` has data or was closed by the peer (true), or `timeout` passes (false); a client's
    /// per-command deadline, where no server stop signal is involved.
    package static func waitReadable(_ descriptor: Int32, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let result = poll(&entry, 1, Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up)))
            if result < 0, errno == EINTR { continue }
            if result < 0 { return true }  // the read that follows reports the error
            if result > 0 { return true }
        }
    }

    // MARK: - Waiting

    /// What a wait ended with.
    package enum WaitResult {
        case readable
        case timedOut
        case stopped
    }

    /// Waits until `descriptor` has data (or was closed by the peer), `timeout` passes, or `wake` fires.
    package static func waitReadable(_ descriptor: Int32?, wake: WakeSignal, timeout: TimeInterval) -> WaitResult {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var descriptors = [pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0)]
            if let descriptor { descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .timedOut }
            let milliseconds = Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up))
            let result = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if result < 0 {
                if errno == EINTR { continue }
                return .stopped
            }
            if result == 0 { continue }
            if descriptors[0].revents != 0 { return .stopped }
            if descriptors.count > 1, descriptors[1].revents != 0 { return .readable }
        }
    }

    /// How a wait for an answer's delay ended.
    package enum DelayEnd {
        case elapsed
        /// The client closed its side (or the connection broke): nobody is waiting for the answer any more.
        case clientLeft
        case stopped
    }

    /// Waits `seconds` before answering on `descriptor`, watching it for the client hanging up, so a delay nobody
    /// waits for any more ends at once and frees its slot. A client that sends its next request early is still
    /// waited for (on Linux the data does not wake the poll; elsewhere it is peeked at and left for the reader).
    package static func delay(_ seconds: TimeInterval, on descriptor: Int32, wake: WakeSignal) -> DelayEnd {
        guard seconds > 0 else { return .elapsed }
        let deadline = Date().addingTimeInterval(seconds)
        var watchSocket = true
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .elapsed }
            // Without POLLRDHUP, pending data would make the socket readable at once: then look again every 50 ms.
            let slice = watchSocket ? remaining : min(remaining, 0.05)
            var descriptors = [pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0)]
            if watchSocket { descriptors.append(pollfd(fd: descriptor, events: peerHangUpEvent, revents: 0)) }
            let result = poll(&descriptors, nfds_t(descriptors.count), Int32(min(slice * 1000, Double(Int32.max)).rounded(.up)))
            if result < 0 {
                if errno == EINTR { continue }
                return .stopped
            }
            if descriptors[0].revents != 0 { return .stopped }
            watchSocket = true
            guard descriptors.count > 1, descriptors[1].revents != 0 else { continue }
            if descriptors[1].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .clientLeft }
            var byte: UInt8 = 0
            let peeked = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if peeked == 0 { return .clientLeft }
            if peeked < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return .clientLeft }
            // Data of a next request: not a hang-up, and not ours to read here.
            watchSocket = peeked < 0
        }
    }

    /// Sleeps for `seconds` unless `wake` fires first; returns false when woken (the server is stopping).
    package static func sleep(_ seconds: TimeInterval, wake: WakeSignal) -> Bool {
        guard seconds > 0 else { return true }
        return waitReadable(nil, wake: wake, timeout: seconds) == .timedOut
    }

    // MARK: - Helpers

    private static func setNonBlocking(_ descriptor: Int32, _ enabled: Bool) {
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0 else { return }
        _ = fcntl(descriptor, F_SETFL, enabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }

    /// Keeps descriptors out of child processes, which would otherwise hold the port open after `stop()`.
    package static func setCloseOnExec(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    private static func boundPort(_ descriptor: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default:
                return nil
            }
        }
    }

    private static func address(of storage: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        let converted: Bool = withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil
                }
            default:
                return false
            }
        }
        guard converted else { return "-" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A pipe that, once written, stays readable: every thread polling it wakes, which is how `stop()` reaches
/// threads blocked waiting for a client or sleeping for an injected delay.
package final class WakeSignal: Sendable {
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    package init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw AggregateError(.config, "cannot create the server's wake-up pipe: \(POSIXSocket.errorText(errno))")
        }
        readDescriptor = ends[0]
        writeDescriptor = ends[1]
        POSIXSocket.setCloseOnExec(readDescriptor)
        POSIXSocket.setCloseOnExec(writeDescriptor)
    }

    /// Wakes every current and future waiter.
    package func fire() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Closes both ends; only once no thread can poll it any more.
    package func close() {
        POSIXSocket.closeDescriptor(readDescriptor)
        POSIXSocket.closeDescriptor(writeDescriptor)
    }
}
