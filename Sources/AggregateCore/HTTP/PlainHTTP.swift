public import Foundation

/// Where plain `http://` may go: this machine always; any other host only when the user opted in
/// (``FetchOptions/allowHTTP``, `--allow-http`), with a warning, because nothing on the way is encrypted.
public enum PlainHTTP {
    /// Whether `host` is this machine: a loopback name or address, or the wildcard addresses a server prints
    /// when it listens everywhere (`rails s -b 0.0.0.0` shows `http://0.0.0.0:3000`; `[::]` is IPv6's).
    public static func isThisMachine(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return isLoopbackHost(host) || ["0.0.0.0", "::", "[::]"].contains(host)
    }

    /// Whether `url` is allowed: https, http to this machine, or any http when `allowHTTP`.
    public static func isAllowed(_ url: URL, allowHTTP: Bool) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return allowHTTP || isThisMachine(url.host)
        default: return false
        }
    }

    /// Whether `url` is plain http to another machine (allowed only on request, and worth a warning).
    public static func leavesThisMachine(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "http" && !isThisMachine(url.host)
    }

    /// The refusal of plain http to `host`, saying how to opt in.
    public static func refusal(host: String) -> String {
        "refusing plain http:// to \(host): use https://, or pass --allow-http to send requests to it unencrypted"
    }

    /// The one-line warning for a run that sends plain http to another machine.
    public static func warning(host: String) -> String {
        "sending plain http:// to \(host): requests and answers can be read and changed on the network"
    }
}
