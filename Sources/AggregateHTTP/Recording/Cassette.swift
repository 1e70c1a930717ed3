public import AggregateCore
public import AggregateJSON
import AggregateText
public import Foundation

/// A recording of a run's HTTP exchanges, as `--record DIR` writes it to `DIR/cassette.json` and `--replay DIR`
/// and `aggregate sandbox --replay DIR` read it. The format is versioned and described by
/// `Schemas/cassette.schema.json` and docs/record-replay.md.
///
/// Everything in it has passed through ``Redactor``: URLs, header values and bodies. A credential shows as `***`,
/// which matching treats as "any value", so a cassette replays whatever credential (or stand-in) is in use.
public struct Cassette: Sendable, Equatable {
    /// The `format` member every cassette carries.
    public static let format = "aggregate-cassette"
    /// The version this build writes and reads.
    public static let version = 1
    /// The file name inside the cassette folder.
    public static let fileName = "cassette.json"

    /// One request and what came of it.
    public struct Exchange: Sendable, Equatable {
        /// The provider that sent it.
        public var provider: String
        /// When it was sent.
        public var startedAt: Date
        /// How long the answer took, in milliseconds.
        public var durationMs: Double
        /// The request as sent (credentials redacted).
        public var request: Request
        /// The outcome: a response, or the failure a transport reported.
        public var outcome: Outcome

        /// Creates an exchange.
        public init(provider: String, startedAt: Date, durationMs: Double, request: Request, outcome: Outcome) {
            self.provider = provider
            self.startedAt = startedAt
            self.durationMs = durationMs
            self.request = request
            self.outcome = outcome
        }
    }

    /// A recorded request.
    public struct Request: Sendable, Equatable {
        /// `GET`, `POST`, ...
        public var method: String
        /// The absolute URL.
        public var url: String
        /// The header fields in order.
        public var headers: HTTPHeaders
        /// The body, or `nil` for none.
        public var body: Data?

        /// Creates a request.
        public init(method: String, url: String, headers: HTTPHeaders = [:], body: Data? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// What an exchange ended in.
    public enum Outcome: Sendable, Equatable {
        /// A response (any status: a recorded 503 replays as the same 503).
        case response(status: Int, headers: HTTPHeaders, body: Data)
        /// A failure without a response (a dropped connection, a timeout), replayed as the same error.
        case failure(AggregateError.Kind, message: String)
    }

    /// When the recording started.
    public var recordedAt: Date
    /// The credential variables that were set while recording (names only), so a replay can stand in for them.
    public var credentialVariables: [String]
    /// The exchanges in the order they were sent.
    public var exchanges: [Exchange]

    /// Creates a cassette.
    public init(recordedAt: Date, credentialVariables: [String] = [], exchanges: [Exchange] = []) {
        self.recordedAt = recordedAt
        self.credentialVariables = credentialVariables
        self.exchanges = exchanges
    }

    /// The cassette file in `directory`.
    public static func file(in directory: URL) -> URL { directory.appendingPathComponent(fileName) }
}

// MARK: - Reading and writing

extension Cassette {
    /// The cassette as JSON (version 1).
    public var jsonValue: JSONValue {
        [
            "format": .string(Self.format),
            "version": .int(Self.version),
            "recordedAt": .string(UTCTimestamp.iso8601(recordedAt, milliseconds: true)),
            "credentialVariables": .array(credentialVariables.map(JSONValue.string)),
            "exchanges": .array(exchanges.map(\.jsonValue)),
        ]
    }

    /// Reads the cassette in `directory`.
    /// - Throws: an `invalidInput` error (exit 65) naming the file and what is wrong with it, or `config` when it
    ///   cannot be read at all.
    public static func load(from directory: URL) throws(AggregateError) -> Cassette {
        let file = file(in: directory)
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw AggregateError(.config, "cannot read the cassette \(file.path): \(FileManager.default.fileExists(atPath: file.path) ? "it is not readable" : "there is none (record one with --record \(directory.path))")")
        }
        do {
            return try Cassette(json: try JSONParser().parse(data))
        } catch let error as CassetteError {
            throw AggregateError(.invalidInput, "the cassette \(file.path) is not valid: \(error.reason); record it again with --record")
        } catch {
            throw AggregateError(.invalidInput, "the cassette \(file.path) is not valid JSON (\(error)); record it again with --record")
        }
    }

    /// Writes the cassette to `directory` (created if needed) atomically: a temporary file created 0600, then a
    /// rename (``FileReplacement``, which also removes the temporaries a killed run left in the folder).
    /// - Throws: an `ioError` (exit 74) when the folder or the file cannot be written.
    public func save(to directory: URL) throws(AggregateError) {
        let file = Self.file(in: directory)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AggregateError(.ioError, "cannot write the cassette \(file.path): \(FileSystemReason.describe(error))")
        }
        do {
            try FileReplacement.replace(file, with: JSONWriter(pretty: true).data(jsonValue))
        } catch {
            throw AggregateError(.ioError, "cannot write the cassette \(file.path): \(error.reason)")
        }
    }

    /// Reads a version-1 cassette.
    init(json: JSONValue) throws {
        guard json.object != nil else { throw CassetteError("the top level is not an object") }
        guard json["format"]?.string == Self.format else { throw CassetteError("\"format\" is not \"\(Self.format)\"") }
        guard let version = json["version"]?.int else { throw CassetteError("\"version\" is missing") }
        guard version == Self.version else { throw CassetteError("version \(version) is not one this build reads (\(Self.version))") }
        guard let recorded = json["recordedAt"]?.string.flatMap(UTCTimestamp.date(fromISO8601:)) else {
            throw CassetteError("\"recordedAt\" is not an ISO 8601 time")
        }
        guard let exchanges = json["exchanges"]?.array else { throw CassetteError("\"exchanges\" is not a list") }
        self.init(
            recordedAt: recorded, credentialVariables: json["credentialVariables"]?.array?.compactMap(\.string) ?? [],
            exchanges: try exchanges.enumerated().map { index, value in
                do {
                    return try Exchange(json: value)
                } catch let error as CassetteError {
                    throw CassetteError("exchange \(index + 1): \(error.reason)")
                }
            })
    }
}

/// What is wrong with a cassette, in a few words.
struct CassetteError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

extension Cassette.Exchange {
    var jsonValue: JSONValue {
        var object: JSONObject = [
            "provider": .string(provider),
            "startedAt": .string(UTCTimestamp.iso8601(startedAt, milliseconds: true)),
            "durationMs": .double((durationMs * 10).rounded() / 10),
            "request": [
                "method": .string(request.method), "url": .string(request.url), "headers": Cassette.headersJSON(request.headers),
            ],
        ]
        if var requestObject = object["request"]?.object {
            Cassette.setBody(request.body, in: &requestObject)
            object["request"] = .object(requestObject)
        }
        switch outcome {
        case .response(let status, let headers, let body):
            var response: JSONObject = ["status": .int(status), "headers": Cassette.headersJSON(headers)]
            Cassette.setBody(body, in: &response)
            object["response"] = .object(response)
        case .failure(let kind, let message):
            object["error"] = ["kind": .string(kind.rawValue), "message": .string(message)]
        }
        return .object(object)
    }

    init(json: JSONValue) throws {
        guard let provider = json["provider"]?.nonEmptyString else { throw CassetteError("\"provider\" is missing") }
        guard let started = json["startedAt"]?.string.flatMap(UTCTimestamp.date(fromISO8601:)) else { throw CassetteError("\"startedAt\" is not an ISO 8601 time") }
        guard let request = json["request"], let method = request["method"]?.nonEmptyString, let url = request["url"]?.nonEmptyString,
            URL(string: url) != nil
        else { throw CassetteError("\"request\" needs a method and an absolute url") }
        let recorded = Cassette.Request(
            method: method, url: url, headers: try Cassette.headers(request["headers"]), body: try Cassette.body(of: request))
        let outcome: Cassette.Outcome
        if let response = json["response"] {
            guard let status = response["status"]?.int, (100...599).contains(status) else { throw CassetteError("\"response.status\" is not an HTTP status") }
            outcome = .response(status: status, headers: try Cassette.headers(response["headers"]), body: try Cassette.body(of: response) ?? Data())
        } else if let error = json["error"] {
            guard let kind = error["kind"]?.string.flatMap(AggregateError.Kind.init(rawValue:)), let message = error["message"]?.string else {
                throw CassetteError("\"error\" needs a known kind and a message")
            }
            outcome = .failure(kind, message: message)
        } else {
            throw CassetteError("it has neither \"response\" nor \"error\"")
        }
        self.init(provider: provider, startedAt: started, durationMs: json["durationMs"]?.double ?? 0, request: recorded, outcome: outcome)
    }
}

extension Cassette {
    /// Headers as `[[name, value], ...]`, which keeps their order and repeated names.
    static func headersJSON(_ headers: HTTPHeaders) -> JSONValue {
        .array(headers.fields.map { [.string($0.name), .string($0.value)] })
    }

    static func headers(_ json: JSONValue?) throws -> HTTPHeaders {
        guard let json else { return [:] }
        guard let pairs = json.array else { throw CassetteError("headers are not a list of [name, value] pairs") }
        return HTTPHeaders(try pairs.map { pair in
            guard let name = pair[0]?.string, let value = pair[1]?.string, pair.array?.count == 2 else {
                throw CassetteError("a header is not a [name, value] pair")
            }
            return (name: name, value: value)
        })
    }

    /// `body` as text when it is UTF-8, else as base64 with `"bodyEncoding": "base64"`.
    static func setBody(_ body: Data?, in object: inout JSONObject) {
        guard let body else {
            object["body"] = .null
            return
        }
        if let text = String(data: body, encoding: .utf8) {
            object["body"] = .string(text)
        } else {
            object["body"] = .string(body.base64EncodedString())
            object["bodyEncoding"] = "base64"
        }
    }

    static func body(of json: JSONValue) throws -> Data? {
        guard let value = json["body"], value != .null else { return nil }
        guard let text = value.string else { throw CassetteError("a body is not a string") }
        switch json["bodyEncoding"]?.string ?? "utf8" {
        case "utf8": return Data(text.utf8)
        case "base64":
            guard let data = Data(base64Encoded: text) else { throw CassetteError("a base64 body does not decode") }
            return data
        case let other: throw CassetteError("unknown bodyEncoding \"\(other)\"")
        }
    }
}
