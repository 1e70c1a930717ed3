import Foundation

/// Every provider's normalizer and error mapping over mutated samples: the first byte picks the status, the rest
/// is the body. Each operation must return items or throw, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNormalizers(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let statuses = [200, 200, 200, 200, 400, 401, 403, 404, 422, 429, 500, 503]
    let status = statuses[Int(data[0]) % statuses.count]
    let body = Data(bytes: data + 1, count: size - 1)
    for provider in allProviders {
        let descriptor = provider.descriptor
        let base = URL(string: descriptor.defaultBaseURL ?? "https://example.invalid")!
        for operation in descriptor.operations {
            let query = Query(provider: descriptor.name, operation: operation.name, baseURL: base, now: Date(timeIntervalSince1970: 1_764_424_980))
            let response = HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body, url: base)
            let instance = provider.init()
            if status == 200 {
                _ = try? instance.normalize(response, for: query)
            } else {
                _ = instance.error(for: response, query: query)
                _ = instance.retryDelay(for: response, now: query.now)
            }
        }
    }
    return 0
}
