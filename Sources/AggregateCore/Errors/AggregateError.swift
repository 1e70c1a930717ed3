public import AggregateJSON
import Foundation

/// The one error type every stage of a run ends in: it names the provider, what went wrong, and what to do.
///
/// `message` is the text after `Error: <provider>: ` on stderr, so it reads as one sentence such as
/// `the API key was rejected (HTTP 401). Check MEETUP_API_KEY.` It never contains a secret: everything that
/// builds one from request or response data passes through ``Redactor``.
public struct AggregateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of an error, as written in the JSON contract's `error.kind`.
    public enum Kind: String, Sendable, CaseIterable {
        /// The command line was wrong (exit 64).
        case usage
        /// Something the user must configure is missing or wrong, such as credentials (exit 78).
        case config
        /// The API rejected the credentials.
        case auth
        /// The requested thing does not exist.
        case notFound
        /// The API's rate limit was hit and waiting was not possible within the retry budget.
        case rateLimited
        /// Any other unsuccessful HTTP status.
        case http
        /// The connection failed.
        case network
        /// A request took longer than the timeout.
        case timeout
        /// A response could not be read.
        case decoding
        /// A response was larger than the size cap.
        case tooLarge
        /// Local input (a file or standard input) is not valid data (exit 65).
        case invalidInput
        /// A local input (a file, standard input) does not exist or is closed (exit 66).
        case noInput
        /// Reading a local input or writing the output failed (exit 74).
        case ioError
    }

    /// The category.
    public var kind: Kind
    /// One sentence, without the `Error: provider:` prefix.
    public var message: String
    /// The provider the error belongs to, when there is one.
    public var provider: String?
    /// The HTTP status, when the error came from a response.
    public var httpStatus: Int?
    /// For `network` errors: whether the request may have reached the server before the connection failed,
    /// which matters for requests that change data.
    public var requestMayHaveBeenSent: Bool

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, provider: String? = nil, httpStatus: Int? = nil, requestMayHaveBeenSent: Bool = false) {
        self.kind = kind
        self.message = message
        self.provider = provider
        self.httpStatus = httpStatus
        self.requestMayHaveBeenSent = requestMayHaveBeenSent
    }

    /// The same error attributed to `provider` (kept when one is already set).
    public func attributed(to provider: String) -> AggregateError {
        var copy = self
        if copy.provider == nil { copy.provider = provider }
        return copy
    }

    /// `provider: message`, or just the message.
    public var description: String {
        if let provider { return "\(provider): \(message)" }
        return message
    }

    /// The error in the JSON contract's shape.
    public var jsonValue: JSONValue {
        [
            "kind": .string(kind.rawValue),
            "message": .string(message),
            "httpStatus": httpStatus.map(JSONValue.int) ?? .null,
        ]
    }
}

/// The process exit codes, and the one place that maps outcomes to them.
public enum ExitCode: Int32, Sendable {
    /// Everything worked.
    case success = 0
    /// The command failed.
    case failure = 1
    /// Some providers failed and some succeeded.
    case partial = 3
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// Local input data was invalid (EX_DATAERR).
    case dataError = 65
    /// A local input does not exist or cannot be opened, or standard input is closed (EX_NOINPUT).
    case noInput = 66
    /// Reading an input or writing the output failed, e.g. a full disk (EX_IOERR).
    case ioError = 74
    /// Configuration is missing, e.g. credentials (EX_CONFIG).
    case config = 78

    /// The exit code for a run that ended in `error`.
    public init(for error: AggregateError) {
        switch error.kind {
        case .usage: self = .usage
        case .config: self = .config
        case .invalidInput: self = .dataError
        case .noInput: self = .noInput
        case .ioError: self = .ioError
        case .auth, .notFound, .rateLimited, .http, .network, .timeout, .decoding, .tooLarge: self = .failure
        }
    }

    /// The exit code of `aggregate compare`: success when all succeeded, failure when all failed, partial otherwise.
    public init(comparing results: [ProviderResult]) {
        let failures = results.filter { $0.error != nil }.count
        self = failures == 0 ? .success : failures == results.count ? .failure : .partial
    }

    /// The exit code for several provider results: success when all succeeded, failure when all failed,
    /// partial otherwise. A single failed result keeps its own error's code (e.g. 78 for missing credentials).
    public init(for results: [ProviderResult]) {
        let failures = results.compactMap(\.error)
        if failures.isEmpty {
            self = .success
        } else if results.count == 1, let only = failures.first {
            self.init(for: only)
        } else if failures.count == results.count {
            self = .failure
        } else {
            self = .partial
        }
    }
}

extension AggregateError {
    /// The line the user sees for this error, ending with a newline:
    /// `Error: meetup: the API key was rejected (HTTP 401). Check MEETUP_API_KEY.`
    public var diagnosticLine: String { "Error: \(description)\n" }
}
