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
            var query = Query(
                provider: descriptor.name, operation: operation.name, parameters: sampleParameters(descriptor.options + operation.parameters),
                baseURL: base, environment: Dictionary(uniqueKeysWithValues: descriptor.auth.map { ($0.name, "fuzz-credential") }),
                now: Date(timeIntervalSince1970: 1_764_424_980))
            // The typed plan every stage reads; with stand-in credentials and parameters configuration succeeds.
            try? provider.init().configure(&query)
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

/// A valid value for every parameter: its default, else a plain sample of its type.
func sampleParameters(_ parameters: [Parameter]) -> JSONObject {
    var values = JSONObject()
    for parameter in parameters {
        let text: String?
        switch parameter.type {
        case .integer(let range): text = parameter.defaultValue ?? String(range?.lowerBound ?? 1)
        case .number(let range): text = parameter.defaultValue ?? range.map { String($0.lowerBound) } ?? "0"
        case .choice(let choices), .choiceList(let choices): text = parameter.defaultValue ?? choices.first
        case .boolean: text = nil
        case .string: text = parameter.defaultValue ?? (parameter.isRequired ? "fuzz" : nil)
        }
        if let text, let value = try? parameter.value(from: text) { values[parameter.name] = value }
    }
    return values
}
