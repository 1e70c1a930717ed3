/// A transport that answers in-process, with no network: what `--offline` runs go through. The emulators
/// (`SandboxTransport` in `AggregateSandboxKit`) are one; the core and the fetch layer know only this protocol, so an
/// app that never answers offline links no emulator.
public protocol OfflineTransport: HTTPTransport {
    /// The stand-in credentials the emulator of `provider` accepts, used in place of the user's environment.
    func standInEnvironment(for provider: String) -> [String: String]
}
