import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateText
import Foundation

/// `--since TIME|last` on an operation that declares `since` (docs/provider-definitions.md): TIME is checked and
/// written as UTC, and `last` is resolved from the state of the last successful run with the same provider,
/// operation, other parameters and profile.
///
/// The state is the `createdAt` of the newest record that run returned: the API's own clock, so neither this
/// machine's clock nor the time the run took can skip a record. It lives in `$XDG_DATA_HOME/aggregate/state`
/// (else `~/.local/share/aggregate/state`), one 0600 file per key, named by a hash, replaced whole, and only
/// after a run succeeded: a failed or interrupted run leaves the state it found. A run that found nothing newer
/// keeps it too. The file holds the provider, the operation and the time, nothing from the environment.
struct IncrementalRun: Sendable {
    /// The state file of this invocation.
    let file: URL
    /// The time the run asked from (`nil`: the first `--since last` run, which fetches everything).
    let since: Date?

    /// The invocation with `--since` resolved, and the state to record after it, when it said `--since last`.
    /// - Throws: a `usage` error for a TIME that is not ISO 8601.
    static func prepare(_ invocation: ProviderInvocation, context: Context) throws(AggregateError) -> (ProviderInvocation, IncrementalRun?) {
        let name = DefinitionSince.parameterName
        guard let text = invocation.parameters[name]?.string else { return (invocation, nil) }
        var parameters = invocation.parameters
        guard text == DefinitionSince.last else {
            guard let date = DefinitionSince.parse(text) else {
                throw AggregateError(
                    .usage, "--since takes an ISO 8601 date or time (2026-01-31, 2026-01-31T12:00:00Z) or 'last', not '\(text)'", provider: invocation.name)
            }
            parameters[name] = .string(UTCTimestamp.iso8601(date))
            return (ProviderInvocation(provider: invocation.provider, operation: invocation.operation, parameters: parameters, common: invocation.common), nil)
        }
        let file = stateFile(invocation, context: context)
        let since = read(file)
        parameters[name] = since.map { .string(UTCTimestamp.iso8601($0)) }
        let resolved = ProviderInvocation(provider: invocation.provider, operation: invocation.operation, parameters: parameters, common: invocation.common)
        return (resolved, IncrementalRun(file: file, since: since))
    }

    /// Records the newest record's time after a successful run.
    /// - Returns: the error that kept the state from being written, if any.
    func record(_ result: ProviderResult) -> AggregateError? {
        guard result.error == nil, let newest = result.items.compactMap(\.createdAt).max(), since.map({ newest > $0 }) ?? true else { return nil }
        let state: JSONObject = [
            "provider": .string(result.provider), "operation": .string(result.operation), "newestRecord": .string(UTCTimestamp.iso8601(newest)),
        ]
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileReplacement.replace(file, with: JSONWriter(pretty: true).data(.object(state)), flush: true)
        } catch let failure as FileFailure {
            return AggregateError(.ioError, "cannot keep the --since last state in \(folder.path): \(FileSystemReason.describe(errno: failure.code))", provider: result.provider)
        } catch {
            return AggregateError(.ioError, "cannot keep the --since last state in \(folder.path): \(FileSystemReason.describe(error))", provider: result.provider)
        }
        return nil
    }

    /// `<data>/aggregate/state/<hash>.json` for the provider, the operation, the other parameters, the profile and the
    /// source (offline, or the `--base-url`).
    static func stateFile(_ invocation: ProviderInvocation, context: Context) -> URL {
        var others = invocation.parameters
        others[DefinitionSince.parameterName] = nil
        let profile = invocation.common.profile ?? context.environment["AGGREGATE_PROFILE"] ?? ""
        // The sample data and each server are sources of their own: an offline run never moves a live run's state.
        let source = invocation.common.offline ? "offline" : invocation.common.runSettings.baseURL ?? ""
        let material = ["aggregate since v1", invocation.name, invocation.operation.name, JSONWriter().string(.object(others.sortedByKey)), profile, source]
            .joined(separator: "\n")
        return context.dataDirectory.deletingLastPathComponent().appendingPathComponent("state")
            .appendingPathComponent(SHA256.hex(Array(material.utf8)) + ".json")
    }

    static func read(_ file: URL) -> Date? {
        guard let data = FileManager.default.contents(atPath: file.path), let json = try? JSONParser().parse(data),
              let text = json["newestRecord"]?.string
        else { return nil }
        return UTCTimestamp.date(fromISO8601: text)
    }
}

extension JSONObject {
    /// The members ordered by key, so that the same parameters always key the same state.
    fileprivate var sortedByKey: JSONObject { JSONObject(members.sorted { $0.key < $1.key }) }
}
