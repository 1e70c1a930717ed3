import Foundation

/// Which cache validators a real API sends with its answers, so the sandbox answers conditional requests the way
/// that API does (see docs/cache.md for what each API is known to send).
public struct APICaching: Sendable, Equatable {
    /// The validators on successful GET answers.
    public enum Validators: Sendable, Equatable {
        /// A strong `ETag` (a hash of the body), answered with `304` on a matching `If-None-Match`.
        case etag
        /// `Last-Modified` (when this sandbox first served the body), answered with `304` on `If-Modified-Since`.
        case lastModified
        /// Both; `If-None-Match` decides when present, as RFC 9110 says.
        case etagAndLastModified
        /// None: conditional requests get the whole answer again.
        case none
    }

    /// The validators sent.
    public var validators: Validators
    /// The `Cache-Control` sent with successful GET answers (and their 304s), if any.
    public var cacheControl: String?

    /// Creates a declaration.
    public init(validators: Validators, cacheControl: String? = nil) {
        self.validators = validators
        self.cacheControl = cacheControl
    }

    /// An `ETag` and no `Cache-Control`: the default, where an API's documentation says nothing.
    public static let etag = APICaching(validators: .etag)
}
