import Foundation

/// Config editing in memory, through the functions `aggregate config set|unset|get` use: the input is a config
/// document, a dotted key and a value, separated by NUL bytes (the first byte picks set, unset or get). Reading the
/// key, editing and checking the result either succeed or throw one-line errors; nothing traps, and a key too deep
/// for any setting is refused before any recursion.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigEdit(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let fields = UnsafeBufferPointer(start: data + 1, count: size - 1).split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
    let documentBytes = fields.first.map { Data($0) } ?? Data()
    let keyText = fields.count > 1 ? String(decoding: fields[1], as: UTF8.self) : ""
    let valueText = fields.count > 2 ? String(decoding: fields[2], as: UTF8.self) : ""
    let url = URL(fileURLWithPath: "/fuzz/aggregate/config.json")

    // A document as the file gives it (checked), or any JSON object (editing must not trap on either).
    let document: JSONObject
    if let config = try? ConfigFile.parse(documentBytes, url: url, registry: ConfigEditFuzz.registry) {
        document = config.document
    } else if case .object(let object)? = try? JSONParser().parse(documentBytes) {
        document = object
    } else {
        document = JSONObject()
    }

    let key: ConfigKey
    do {
        key = try ConfigKey(keyText)
    } catch {
        ConfigEditFuzz.requireOneLine(error)
        precondition(error.kind == .usage)
        return 0
    }
    precondition((1...ConfigKey.maxParts).contains(key.parts.count))
    precondition(key.parts.joined(separator: ".") == keyText)

    switch data[0] % 3 {
    case 0:
        let edited: JSONObject
        do {
            edited = try ConfigEditor.set(key, to: valueText, in: document)
        } catch {
            ConfigEditFuzz.requireOneLine(error)
            return 0
        }
        // What `config get` then shows is what was set.
        precondition(ConfigEditor.value(at: key, in: edited) == (try? ConfigEditor.value(for: key.parts, text: valueText)))
        ConfigEditFuzz.check(edited, url: url)
    case 1:
        guard let edited = ConfigEditor.unset(key, in: document) else {
            precondition(ConfigEditor.value(at: key, in: document) == nil)
            return 0
        }
        precondition(ConfigEditor.value(at: key, in: edited) == nil)
        ConfigEditFuzz.check(edited, url: url)
    default:
        _ = ConfigEditor.value(at: key, in: document)
    }
    return 0
}

enum ConfigEditFuzz {
    static let registry = try! ProviderRegistry(allProviders)

    /// The check `config set|unset` makes before writing: the document as text, read back as the file would be.
    static func check(_ document: JSONObject, url: URL) {
        let text = JSONWriter(pretty: true).string(.object(document)) + "\n"
        do {
            _ = try ConfigFile.parse(Data(text.utf8), url: url, registry: registry)
        } catch {
            precondition(error.kind == .config)
        }
    }

    static func requireOneLine(_ error: AggregateError) {
        precondition(!error.message.contains("\n"), "an error is one line: \(error.message.prefix(200))")
    }
}

/// The command's context, as far as `EffectiveSettings` (compiled in for `SettingOrigin`, which `CommonOptions` names)
/// reads it; the harness never makes one.
struct Context: Sendable {
    var environment: [String: String]
    var registry: ProviderRegistry
}
