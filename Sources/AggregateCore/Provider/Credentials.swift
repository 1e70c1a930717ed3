import Foundation

/// How the core sends a declared credential.
public enum CredentialPlacement: Sendable, Equatable {
    /// `Authorization: Bearer <value>`.
    case bearer
    /// The query parameter `name=<value>`.
    case queryParameter(String)
    /// The request header `name: <value>`.
    case header(String)
}

/// A credential found in the environment: the declaration it came from and its value.
public struct ResolvedCredential: Sendable, Equatable {
    /// The declaration.
    public var variable: AuthVariable
    /// The value (never shown; the redactor masks it).
    public var value: String

    /// The credential as the fetch layer attaches it, or `nil` when the declaration says it is not sent.
    public var credential: Credential? {
        switch variable.placement {
        case .bearer?: return .bearer(value)
        case .queryParameter(let name)?: return .queryParameter(name: name, value: value)
        case .header(let name)?: return .header(name: name, value: value)
        case nil: return nil
        }
    }
}

/// The credentials a run may use: the provider's declared variables that are set, in declaration order.
/// A provider sees only these, never the rest of the environment.
public struct Credentials: Sendable, Equatable {
    /// The declared variables that are set (non-blank), in the descriptor's order.
    public var available: [ResolvedCredential]

    /// Reads the declared variables of `descriptor` from `environment`.
    public init(declaredBy descriptor: ProviderDescriptor, environment: [String: String]) {
        available = descriptor.auth.compactMap { variable in
            guard let value = environment[variable.name], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return ResolvedCredential(variable: variable, value: value)
        }
    }

    /// The first credential that is set: the one sent unless the provider's plan picks another.
    public var first: ResolvedCredential? { available.first }

    /// The credential from the variable `name`, when it is set.
    public subscript(name: String) -> ResolvedCredential? { available.first { $0.variable.name == name } }

    /// The first set credential among `names` (a variable and its aliases).
    public func first(of names: [String]) -> ResolvedCredential? {
        available.first { names.contains($0.variable.name) }
    }
}

extension ProviderDescriptor {
    /// Whether a run needs at least one credential (some declared variable is required).
    public var requiresCredentials: Bool { auth.contains { $0.isRequired } }

    /// The one missing-credentials error (exit 78): it names the variables and suggests `--offline`, e.g.
    /// `no credentials: set MEETUP_TOKEN (GraphQL API) or MEETUP_API_KEY (API v2), or use --offline to see sample data`.
    public var missingCredentialsError: AggregateError {
        var names: [String] = []
        for variable in auth where variable.isRequired {
            if variable.isAlias, let last = names.popLast() {
                names.append("\(last) (or \(variable.name))")
            } else {
                names.append(variable.label.map { "\(variable.name) (\($0))" } ?? variable.name)
            }
        }
        return AggregateError(
            .config, "no \(missingCredentialsNoun): set \(names.joined(separator: " or ")), or use --offline to see sample data")
    }

    /// The advice after a rejected credential: `Check MEETUP_TOKEN or MEETUP_API_KEY`, or `Check the credentials`.
    public var checkCredentialsAdvice: String {
        let names = auth.map(\.name)
        return "Check \(names.isEmpty ? "the credentials" : names.joined(separator: " or "))"
    }

    /// Only the environment variables the provider declared: what a provider is allowed to see.
    public func declaredEnvironment(from environment: [String: String]) -> [String: String] {
        let names = Set(auth.map(\.name) + settingVariables)
        return environment.filter { names.contains($0.key) }
    }
}
