public import AggregateCore
import AggregateJSON
import AggregateText
public import Foundation

/// Where OAuth2 access tokens are kept between runs: one file per provider, token URL, client id and profile,
/// `<directory>/<sha256>.json`, created 0600 (folder 0700) and replaced whole (``FileReplacement``), so another run
/// reads the old token or the new one, never half of one.
///
/// The file name is a hash, so it names neither the client id nor the token URL; the secret enters neither the
/// name nor the file. A file that cannot be read or parsed is treated as no token: a new one is fetched and
/// replaces it.
public struct ClientCredentialsTokenCache: Sendable {
    /// A token and when it stops being good, as kept on disk.
    public struct Token: Sendable, Equatable {
        /// The access token.
        public var value: String
        /// When it expires (the server's `expires_in` from when it was fetched), or `nil` when the server said not.
        public var expiresAt: Date?

        /// Creates a token.
        public init(value: String, expiresAt: Date?) {
            self.value = value
            self.expiresAt = expiresAt
        }

        /// Whether it is still good at `now`, with a margin (a tenth of its lifetime, at most a minute) so that a
        /// request sent just before the expiry does not arrive just after it.
        public func isUsable(at now: Date, lifetime: TimeInterval?) -> Bool {
            guard let expiresAt else { return true }
            let margin = min(60, max(0, (lifetime ?? 600) / 10))
            return now.addingTimeInterval(margin) < expiresAt
        }
    }

    /// The folder of the token files: `<data directory>/aggregate/tokens` for the command line.
    public var directory: URL
    /// The config profile of the runs, which keys the tokens too (two profiles may point at two accounts).
    public var profile: String

    /// A cache in `directory` for `profile` (empty for none).
    public init(directory: URL, profile: String = "") {
        self.directory = directory
        self.profile = profile
    }

    /// The file of one provider's token.
    public func file(provider: String, tokenURL: URL, clientID: String) -> URL {
        let material = ["aggregate oauth2 token v1", provider, tokenURL.absoluteString, clientID, profile].joined(separator: "\n")
        return directory.appendingPathComponent(SHA256.hex(Array(material.utf8)) + ".json")
    }

    /// The kept token, if there is one that parses.
    public func load(provider: String, tokenURL: URL, clientID: String) -> (token: Token, lifetime: TimeInterval?)? {
        let file = file(provider: provider, tokenURL: tokenURL, clientID: clientID)
        guard let data = FileManager.default.contents(atPath: file.path), let json = try? JSONParser().parse(data),
              case .string(let value)? = json["accessToken"], !value.isEmpty
        else { return nil }
        let expiresAt = json["expiresAt"]?.double.map(Date.init(timeIntervalSince1970:))
        let lifetime = json["lifetime"]?.double
        return (Token(value: value, expiresAt: expiresAt), lifetime)
    }

    /// Keeps `token`, replacing the one before.
    /// - Throws: an `io` error naming the folder when it cannot be written.
    public func save(_ token: Token, lifetime: TimeInterval?, provider: String, tokenURL: URL, clientID: String) throws(AggregateError) {
        var object: JSONObject = ["accessToken": .string(token.value)]
        if let expiresAt = token.expiresAt { object["expiresAt"] = .number(String(Int(expiresAt.timeIntervalSince1970.rounded()))) }
        if let lifetime { object["lifetime"] = .number(String(Int(lifetime.rounded()))) }
        let file = file(provider: provider, tokenURL: tokenURL, clientID: clientID)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AggregateError(.ioError, "cannot create the token folder \(directory.path): \(FileSystemReason.describe(error))")
        }
        do {
            try FileReplacement.replace(file, with: JSONWriter().data(.object(object)))
        } catch {
            throw AggregateError(.ioError, "cannot write the token file in \(directory.path): \(FileSystemReason.describe(errno: error.code))")
        }
    }

    /// Forgets the kept token (after the API refused it and no new one could be fetched).
    public func remove(provider: String, tokenURL: URL, clientID: String) {
        _ = unlink(file(provider: provider, tokenURL: tokenURL, clientID: clientID).path)
    }
}
