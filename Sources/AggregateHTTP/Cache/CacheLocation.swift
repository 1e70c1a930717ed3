public import Foundation

/// Where `aggregate` keeps data it can rebuild: HTTP cache entries under `<root>/http/`, rate-limit state under
/// `<root>/ratelimit/`. Folders are created 0700 and files 0600 by their owners.
public enum CacheLocation {
    /// `$XDG_CACHE_HOME/aggregate` when `XDG_CACHE_HOME` is set and absolute, else `$HOME/.cache/aggregate`
    /// (the user's home directory when `HOME` is not set either).
    public static func root(environment: [String: String]) -> URL {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("aggregate")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".cache/aggregate")
    }
}
