/// The tool's version.
public enum AggregateVersion {
    /// The current version, printed by `aggregate --version`.
    public static let current = "0.1.0"
}
