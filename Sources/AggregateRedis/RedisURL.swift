import Foundation

/// Where a Redis server is: `redis://[[user]:password@]HOST[:PORT][/DB]`. Its ``description`` never shows the
/// password (nor the user), so it can name the server in any error or log line.
package struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    /// The host name or address (an IPv6 address without its brackets).
    package var host: String
    /// The port (6379 unless given).
    package var port: Int
    /// The database number `SELECT`ed after connecting (0 unless given).
    package var database: Int
    /// The ACL user for `AUTH user password`, if any.
    package var user: String?
    /// The password for `AUTH`, if any. Never shown.
    package var password: String?

    /// Creates a location.
    package init(host: String, port: Int = 6379, database: Int = 0, user: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
    }

    /// Reads `text`.
    /// - Throws: ``RedisError/badURL(_:)`` with a one-line reason that never repeats the password.
    package init(_ text: String) throws(RedisError) {
        guard text.lowercased().hasPrefix("redis://") else { throw .badURL("it must start with redis://") }
        let rest = text.dropFirst("redis://".count)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = rest.dropFirst(authority.count)
        if path.contains("?") || path.contains("#") { throw .badURL("query strings and fragments are not supported") }
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let decodedUser = parts.first.flatMap { String($0).removingPercentEncoding }
            user = (decodedUser?.isEmpty ?? true) ? nil : decodedUser
            if parts.count == 2 {
                guard let decoded = String(parts[1]).removingPercentEncoding else { throw .badURL("the password is not valid percent-encoding") }
                password = decoded.isEmpty ? nil : decoded
            } else {
                // `redis://secret@host`: a lone name is the password, as redis-cli -u reads it.
                password = user
                user = nil
            }
        }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .badURL("an IPv6 address lacks its ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw .badURL("unexpected text after the host") }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw .badURL("it names no host") }
        port = 6379
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { throw .badURL("the port must be a number from 1 to 65535") }
            port = number
        }
        database = 0
        if path.hasPrefix("/") { path = path.dropFirst() }
        if !path.isEmpty {
            guard let number = Int(path), number >= 0 else { throw .badURL("the database must be a number, as in redis://HOST:PORT/0") }
            database = number
        }
    }

    /// `redis://HOST:PORT/DB`: the server without any credential.
    package var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(shownHost):\(port)/\(database)"
    }
}
