#if os(Linux)
package import AggregateCore
import AggregateHTTP
import AggregateText
import CCurlShim
import Foundation

/// The executable's transport on Linux: libcurl's easy interface, loaded by the first request (see the module's
/// comment). It behaves as `URLSessionTransport` does: no redirects followed (the `Fetcher` follows them so it can drop
/// credentials on another host), no cookies, the same default `User-Agent` and `Accept`, the same decompression
/// (every encoding libcurl decodes is offered), an idle-timeout backstop behind the fetch layer's deadline, the
/// `maxResponseBytes` cap (refused on `Content-Length`, cut off while streaming), cancellation, and the same
/// one-line errors. Each body is received into one growing buffer, reserved from `Content-Length` when the server
/// sends one. Idle easy handles are kept, so their connections are reused by the next request to the same server.
package final class CurlTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    /// Idle easy handles, each with its open connections (guarded by `lock`).
    private var idle: [UnsafeMutableRawPointer] = []
    private static let maxIdleHandles = 8

    /// Creates a transport; nothing is loaded until the first request.
    package init() {}

    deinit {
        for handle in idle { ccurl_easy_cleanup(handle) }
    }

    /// Sends `request` on a thread of its own (libcurl's easy interface blocks), and aborts it when the task is cancelled.
    /// - Throws: `AggregateError` with one line for each failure class, as `URLSessionTransport` words them.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Self.loadLibrary()
        let transfer = Transfer(request: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                // A thread of its own, not Dispatch's global queues: on Linux those are the threads Swift's
                // concurrency runs on (as many as cores), and a transfer waiting on a slow server there would stall
                // every other task of the process, `serve`'s clients included.
                Thread.detachNewThread {
                    continuation.resume(with: self.perform(transfer))
                }
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// The one error line when libcurl cannot be loaded: the package to install, never a loader's path list.
    package static func missingLibraryError(_ reason: String) -> AggregateError {
        AggregateError(
            .config,
            "live requests need libcurl, which could not be loaded (\(reason.isEmpty ? "libcurl.so.4 not found" : reason)); install the libcurl4 package")
    }

    private static func loadLibrary() throws(AggregateError) {
        var reason = [CChar](repeating: 0, count: 256)
        guard ccurl_load(&reason, reason.count) == 1 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw missingLibraryError(text)
        }
    }

    // MARK: - Handles

    private func takeHandle() -> UnsafeMutableRawPointer? {
        lock.lock()
        let reused = idle.popLast()
        lock.unlock()
        if let reused {
            ccurl_easy_reset(reused)
            return reused
        }
        return ccurl_easy_init()
    }

    private func returnHandle(_ handle: UnsafeMutableRawPointer) {
        lock.lock()
        let kept = idle.count < Self.maxIdleHandles
        if kept { idle.append(handle) }
        lock.unlock()
        if !kept { ccurl_easy_cleanup(handle) }
    }

    // MARK: - One transfer

    private func perform(_ transfer: Transfer) -> Result<HTTPResponse, any Error> {
        let request = transfer.request
        guard let handle = takeHandle() else {
            return .failure(AggregateError(.network, "the request to \(request.url.host ?? "the server") could not be made (libcurl could not start a transfer)"))
        }
        var headerList: UnsafeMutableRawPointer?
        defer {
            ccurl_slist_free_all(headerList)
            returnHandle(handle)
        }
        transfer.handle = handle
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var code: Int32 = withExtendedLifetime(transfer) {
            configure(handle, for: request, headers: &headerList, context: context)
            _ = ccurl_setopt_pointer(handle, CurlOption.errorBuffer, transfer.errorBuffer)
            return transfer.isCancelled ? CurlCode.abortedByCallback : ccurl_easy_perform(handle)
        }
        if code == CurlCode.ok, transfer.isCancelled { code = CurlCode.abortedByCallback }
        if transfer.tooLarge {
            return .failure(AggregateError(.tooLarge, "the response is larger than the \(ByteCount.describe(request.maxResponseBytes)) size cap"))
        }
        guard code == CurlCode.ok else { return .failure(Self.translate(code, url: request.url, detail: transfer.errorText)) }
        var status = 0
        _ = ccurl_getinfo_long(handle, CurlInfo.responseCode, &status)
        guard status > 0 else {
            return .failure(AggregateError(.network, "the server sent no HTTP response", requestMayHaveBeenSent: true))
        }
        return .success(HTTPResponse(status: status, headers: transfer.responseHeaders(), body: transfer.body, url: request.url))
    }

    private func configure(
        _ handle: UnsafeMutableRawPointer, for request: HTTPRequest, headers list: inout UnsafeMutableRawPointer?, context: UnsafeMutableRawPointer
    ) {
        // libcurl copies every string option, so the C strings need live only for the call.
        _ = request.url.absoluteString.withCString { ccurl_setopt_pointer(handle, CurlOption.url, $0) }
        _ = ccurl_setopt_long(handle, CurlOption.protocols, 3)  // http and https only
        _ = ccurl_setopt_long(handle, CurlOption.followLocation, 0)
        _ = ccurl_setopt_long(handle, CurlOption.noSignal, 1)
        // URLSession on Linux offers every encoding its libcurl decodes, and hands over the decoded body.
        _ = "".withCString { ccurl_setopt_pointer(handle, CurlOption.acceptEncoding, $0) }
        _ = ccurl_setopt_long(handle, CurlOption.bufferSize, 256 * 1024)
        // The fetch layer enforces the timeout over the whole exchange; this idle timer is only a backstop, as
        // URLSession's timeoutInterval is.
        let backstop = Int(max(1, (request.timeout + 5).rounded(.up)))
        _ = ccurl_setopt_long(handle, CurlOption.connectTimeoutMS, backstop * 1000)
        _ = ccurl_setopt_long(handle, CurlOption.lowSpeedLimit, 1)
        _ = ccurl_setopt_long(handle, CurlOption.lowSpeedTime, backstop)

        switch request.method {
        case "GET":
            _ = ccurl_setopt_long(handle, CurlOption.httpGet, 1)
        case "HEAD":
            _ = ccurl_setopt_long(handle, CurlOption.noBody, 1)
        default:
            if let body = request.body ?? (request.method == "POST" || request.method == "PUT" || request.method == "PATCH" ? Data() : nil) {
                _ = ccurl_setopt_offset(handle, CurlOption.postFieldSizeLarge, Int64(body.count))
                _ = body.withUnsafeBytes { bytes in
                    // COPYPOSTFIELDS copies the bytes; an empty body still needs a valid pointer.
                    bytes.baseAddress.map { ccurl_setopt_pointer(handle, CurlOption.copyPostFields, $0) }
                        ?? "".withCString { ccurl_setopt_pointer(handle, CurlOption.copyPostFields, $0) }
                }
            }
            if request.method != "POST" {
                _ = request.method.withCString { ccurl_setopt_pointer(handle, CurlOption.customRequest, $0) }
            }
        }

        for line in Self.headerLines(for: request) {
            list = line.withCString { ccurl_slist_append(list, $0) } ?? list
        }
        _ = ccurl_setopt_pointer(handle, CurlOption.httpHeader, list)

        _ = ccurl_setopt_data_callback(handle, CurlOption.writeFunction, curlReceiveBody)
        _ = ccurl_setopt_pointer(handle, CurlOption.writeData, context)
        _ = ccurl_setopt_data_callback(handle, CurlOption.headerFunction, curlReceiveHeader)
        _ = ccurl_setopt_pointer(handle, CurlOption.headerData, context)
        _ = ccurl_setopt_long(handle, CurlOption.noProgress, 0)
        _ = ccurl_setopt_progress_callback(handle, CurlOption.xferInfoFunction, curlProgress)
        _ = ccurl_setopt_pointer(handle, CurlOption.xferInfoData, context)
    }

    /// The request's header lines as libcurl takes them, with URLSession's defaults.
    static func headerLines(for request: HTTPRequest) -> [String] {
        var lines: [String] = []
        for field in request.headers {
            // "Name:" would remove a header libcurl adds; "Name;" sends it empty.
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if request.headers["User-Agent"] == nil { lines.append("User-Agent: aggregate/\(AggregateVersion.current)") }
        if request.headers["Accept"] == nil { lines.append("Accept: application/json") }
        // What URLSession on Linux adds to every request (its Accept-Language is the C locale's, `en`).
        if request.headers["Accept-Language"] == nil { lines.append("Accept-Language: en") }
        if request.headers["Connection"] == nil { lines.append("Connection: keep-alive") }
        // No `Expect: 100-continue` wait before a large body, as URLSession sends none.
        if request.headers["Expect"] == nil { lines.append("Expect:") }
        return lines
    }

    // MARK: - Errors

    /// libcurl's result codes as the one line URLSession's errors read as (`URLSessionTransport`'s translation).
    /// `detail` is libcurl's message for this transfer (its error buffer), which URLSession's errors carried too.
    static func translate(_ code: Int32, url: URL?, detail message: String = "") -> AggregateError {
        let host = url?.host ?? "the server"
        let detail = message.isEmpty ? String(cString: ccurl_easy_strerror(code)) : message
        switch code {
        case CurlCode.operationTimedOut:
            return AggregateError(.timeout, "\(host) did not answer within the timeout", requestMayHaveBeenSent: true)
        case CurlCode.couldNotConnect:
            return AggregateError(.network, "cannot connect to \(host)\(url?.port.map { ":\($0)" } ?? ""): connection refused")
        case CurlCode.couldNotResolveHost, CurlCode.couldNotResolveProxy:
            return AggregateError(.network, "cannot find the host \(host) (DNS lookup failed)")
        case CurlCode.unsupportedProtocol, CurlCode.urlMalformat:
            // Refused before any connection was made.
            return AggregateError(.network, "the request to \(host) could not be made (\(detail))")
        case CurlCode.receiveError, CurlCode.sendError:
            return AggregateError(.network, "the connection to \(host) closed before the whole response arrived", requestMayHaveBeenSent: true)
        case CurlCode.weirdServerReply, CurlCode.gotNothing, CurlCode.http2, CurlCode.http2Stream, CurlCode.badContentEncoding:
            return AggregateError(.network, "\(host) sent an invalid HTTP response", requestMayHaveBeenSent: true)
        case CurlCode.abortedByCallback:
            return AggregateError(.network, "the request to \(host) was cancelled", requestMayHaveBeenSent: true)
        case _ where CurlCode.tls.contains(code):
            return AggregateError(.network, "the TLS connection to \(host) failed (\(detail))")
        default:
            return AggregateError(.network, "the request to \(host) failed: \(detail)", requestMayHaveBeenSent: true)
        }
    }
}

// MARK: - The transfer's state, shared with libcurl's callbacks

/// One exchange's state. The callbacks run on the transfer's thread only; `cancel` comes from any thread.
private final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    /// The easy handle running the transfer, for the header callback's `Content-Length`.
    var handle: UnsafeMutableRawPointer?
    var body = Data()
    var tooLarge = false
    /// The current response's header fields, in order (a later status line, e.g. after `100 Continue`, starts over).
    var fields: [(name: String, value: String)] = []
    /// libcurl's message for a failed transfer (CURL_ERROR_SIZE bytes), e.g. "transfer closed with 10 bytes remaining to read".
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
    private let cancelLock = NSLock()
    private var cancelled = false

    init(request: HTTPRequest) {
        self.request = request
        errorBuffer.initialize(repeating: 0, count: 256)
    }

    deinit { errorBuffer.deallocate() }

    var errorText: String {
        errorBuffer[255] = 0
        return String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var isCancelled: Bool {
        cancelLock.lock()
        defer { cancelLock.unlock() }
        return cancelled
    }

    func cancel() {
        cancelLock.lock()
        cancelled = true
        cancelLock.unlock()
    }

    /// The headers as URLSession presented them: one field per name, repeated fields joined with ", ".
    func responseHeaders() -> HTTPHeaders {
        var order: [String] = []
        var values: [String: (name: String, value: String)] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let existing = values[key] {
                values[key] = (existing.name, existing.value + ", " + field.value)
            } else {
                order.append(key)
                values[key] = field
            }
        }
        var headers = HTTPHeaders()
        for key in order {
            if let field = values[key] { headers.add(field.name, field.value) }
        }
        return headers
    }

    func receiveHeader(_ line: UnsafeRawBufferPointer, handle: UnsafeMutableRawPointer?) -> Bool {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            fields = []
        } else if text.isEmpty {
            // The end of a header block: refuse early when the server announces a body over the cap.
            var length: Int64 = -1
            if let handle { _ = ccurl_getinfo_offset(handle, CurlInfo.contentLengthDownload, &length) }
            if length > Int64(request.maxResponseBytes) {
                tooLarge = true
                return false
            }
            if length > 0, body.isEmpty { body.reserveCapacity(Int(length)) }
        } else if let colon = text.firstIndex(of: ":") {
            fields.append((
                name: String(text[..<colon]).trimmingCharacters(in: .whitespaces),
                value: String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        return true
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > request.maxResponseBytes {
            tooLarge = true
            body = Data()
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }
}

// Plain functions, so they convert to C function pointers. Returning less than was given aborts the transfer.
private func curlReceiveBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) }, count: data == nil ? 0 : size * count)
    return transfer.receiveBody(bytes) ? size * count : 0
}

private func curlReceiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) }, count: data == nil ? 0 : size * count)
    return transfer.receiveHeader(bytes, handle: transfer.handle) ? size * count : 0
}

private func curlProgress(_ context: UnsafeMutableRawPointer?, _ downloadTotal: Int64, _ downloaded: Int64, _ uploadTotal: Int64, _ uploaded: Int64) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
}

// MARK: - libcurl's numbers (curl.h; part of its stable ABI)

private enum CurlOption {
    static let writeData: Int32 = 10001
    static let errorBuffer: Int32 = 10010
    static let url: Int32 = 10002
    static let httpHeader: Int32 = 10023
    static let headerData: Int32 = 10029
    static let customRequest: Int32 = 10036
    static let xferInfoData: Int32 = 10057
    static let acceptEncoding: Int32 = 10102
    static let copyPostFields: Int32 = 10165
    static let writeFunction: Int32 = 20011
    static let headerFunction: Int32 = 20079
    static let xferInfoFunction: Int32 = 20219
    static let postFieldSizeLarge: Int32 = 30120
    static let lowSpeedLimit: Int32 = 19
    static let lowSpeedTime: Int32 = 20
    static let noProgress: Int32 = 43
    static let noBody: Int32 = 44
    static let followLocation: Int32 = 52
    static let httpGet: Int32 = 80
    static let bufferSize: Int32 = 98
    static let noSignal: Int32 = 99
    static let connectTimeoutMS: Int32 = 156
    static let protocols: Int32 = 181
}

private enum CurlInfo {
    static let responseCode: Int32 = 0x200000 + 2
    static let contentLengthDownload: Int32 = 0x600000 + 15
}

private enum CurlCode {
    static let ok: Int32 = 0
    static let unsupportedProtocol: Int32 = 1
    static let urlMalformat: Int32 = 3
    static let couldNotResolveProxy: Int32 = 5
    static let couldNotResolveHost: Int32 = 6
    static let couldNotConnect: Int32 = 7
    static let weirdServerReply: Int32 = 8
    static let http2: Int32 = 16
    static let partialFile: Int32 = 18
    static let operationTimedOut: Int32 = 28
    static let abortedByCallback: Int32 = 42
    static let gotNothing: Int32 = 52
    static let sendError: Int32 = 55
    static let receiveError: Int32 = 56
    static let badContentEncoding: Int32 = 61
    static let http2Stream: Int32 = 92
    /// SSL_CONNECT_ERROR, the certificate, engine, cipher, CA file, shutdown, CRL, issuer, pinned key, status and
    /// client certificate failures.
    static let tls: Set<Int32> = [35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98]
}
#endif
