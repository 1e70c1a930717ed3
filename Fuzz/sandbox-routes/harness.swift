import Foundation

/// Every emulator's routes through the in-process router (`SandboxRouter`, as `--offline` and the server use it):
/// the Swift providers' emulators and the generic emulator of each compiled-in definition (GitHub, Hacker News, ...).
/// Whatever the path, query, headers and body, a route answers (or declines) without trapping.
///
/// Input: byte 0 picks the emulator, byte 1 holds flags (bit 0: at the root instead of `/<name>/`, bits 1-3: the
/// method, bit 4: send the emulator's sandbox credentials, bit 5: a writable store, bit 6: also ask for the
/// provider's fault shape, bit 7: `messageboard.csrf=true`); the rest is `path NUL query NUL headers NUL body`, headers
/// one `Name: value` a line. `$K` in the path, query or headers is replaced by the emulator's first credential.
private let catalog = try! SandboxCatalog.withDefinitions(
    swift: allProviders, sandboxes: allSandboxes, builtIn: builtInDefinitions, samples: builtInDefinitionSamples, files: [])
private let router = SandboxRouter(catalog: catalog)
private let store = SandboxStore(
    directory: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("aggregate-fuzz-routes-\(getpid())"))
private let methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "GET"]
private let serverURL = URL(string: "http://127.0.0.1:8787")!
private let now = Date(timeIntervalSince1970: 1_764_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSandboxRoutes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2, size <= 64 << 10 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let sandbox = catalog.sandboxes[Int(bytes[0]) % catalog.sandboxes.count]
    let flags = bytes[1]
    let parts = bytes[2...].split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map { Array($0) }
    func text(_ index: Int) -> String {
        guard index < parts.count else { return "" }
        let credential = sandbox.sandboxEnvironment.sorted { $0.key < $1.key }.first?.value ?? "none"
        return String(decoding: parts[index], as: UTF8.self).replacingOccurrences(of: "$K", with: credential)
    }
    var path = text(0)
    if !path.hasPrefix("/") { path = "/" + path }
    if flags & 1 == 0 { path = "/" + sandbox.providerName + path }
    let query = text(1)
    guard let url = URL(string: serverURL.absoluteString + path + (query.isEmpty ? "" : "?" + query)) else { return 0 }

    var headers = HTTPHeaders()
    for line in text(2).split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    if flags & 16 != 0 {
        for value in sandbox.sandboxEnvironment.values.sorted() { headers.add("Authorization", "Bearer " + value) }
    }
    let body = parts.count > 3 ? Data(parts[3]) : Data()
    let method = methods[Int(flags >> 1) & 7]
    let request = SandboxRequest(method: method, url: url, headers: headers, body: body)
    let settings = flags & 128 != 0 ? ["messageboard.csrf": "true"] : [:]
    let answer = router.respond(
        to: request, serverURL: serverURL, now: now, store: flags & 32 != 0 ? store : nil, settings: settings,
        requestCounter: SandboxRequestCounter())
    precondition((100...599).contains(answer.response.status), "status \(answer.response.status) from \(answer.provider ?? "-")")
    if flags & 64 != 0 {
        for candidate in router.route(request.path) {
            var routed = request
            routed.path = candidate.path
            let context = SandboxContext(baseURL: serverURL, now: now, store: nil, settings: settings)
            _ = candidate.provider.sandboxFaultResponse(status: 400 + Int(bytes[0]) % 200, request: routed, context: context)
        }
    }
    return 0
}
