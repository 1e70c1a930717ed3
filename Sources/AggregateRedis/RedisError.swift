package import AggregateCore
package import Foundation

/// What went wrong talking to Redis, each case worded as one line for the user. No case ever holds the password:
/// the server is named by ``RedisURL/description``, and server messages have the password masked.
package enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `--store` / `AGGREGATE_STORE` text is not a Redis URL we can use.
    case badURL(String)
    /// No connection could be made (refused, timed out, unknown host).
    case unreachable(server: String, reason: String)
    /// The server did not answer within the command's deadline.
    case timedOut(server: String, seconds: TimeInterval)
    /// The connection broke while a command was under way.
    case connectionLost(server: String, reason: String)
    /// The server sent bytes that are not RESP2 we accept, or a reply of an unexpected shape.
    case badReply(server: String, reason: String)
    /// The server answered with an error (`-ERR ...`, `-WRONGPASS ...`).
    case server(server: String, message: String)

    /// Whether the failure is of reaching the server (as opposed to a refusal it answered): what failover acts on.
    package var isConnectionFailure: Bool {
        switch self {
        case .unreachable, .timedOut, .connectionLost, .badReply: return true
        case .badURL, .server: return false
        }
    }

    /// One line, e.g. `cannot reach redis://127.0.0.1:6390/0: connection refused; start redis-server or drop --store`.
    package var description: String {
        switch self {
        case .badURL(let reason): return "the store is not a usable redis:// URL: \(reason); pass --store redis://HOST:PORT/DB or a folder"
        case .unreachable(let server, let reason): return "cannot reach \(server): \(reason); start redis-server or drop --store"
        case .timedOut(let server, let seconds):
            return "\(server) did not answer within \(String(format: "%g", seconds)) s; check the server's load or drop --store"
        case .connectionLost(let server, let reason): return "the connection to \(server) was lost (\(reason)); check the server or drop --store"
        case .badReply(let server, let reason): return "\(server) sent a reply that is not valid RESP2 (\(reason)); is it a Redis server?"
        case .server(let server, let message):
            if message.hasPrefix("WRONGPASS") || message.hasPrefix("NOAUTH") || message.contains("AUTH") {
                return "\(server) refused the login (\(message)); check the password in the store URL"
            }
            return "\(server) answered with an error: \(message)"
        }
    }

    /// The error as the CLI reports it: kind `config` for a bad URL or a refused login, else `network`.
    package var aggregateError: AggregateError {
        switch self {
        case .badURL: return AggregateError(.usage, description)
        case .server: return AggregateError(.config, description)
        default: return AggregateError(.network, description)
        }
    }
}
