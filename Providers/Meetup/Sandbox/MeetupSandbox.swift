import AggregateCore
import AggregateJSON
public import AggregateSandboxKit
import AggregateText
import Foundation

/// Meetup's part of the sandbox: `GET /2/groups` (API v2), `POST /gql-ext` (GraphQL), and the retired
/// `POST /gql`, over the bundled groups in `SampleData/groups.json`.
public enum MeetupSandbox: RoutedSandbox {
    public static let providerName = "meetup"

    /// The credentials the sandbox accepts.
    public static let sandboxEnvironment = [
        "MEETUP_API_KEY": "sandbox-meetup-key",
        "MEETUP_TOKEN": "sandbox-meetup-token",
    ]

    /// API v2's groups and the GraphQL endpoints, at the sandbox's root.
    public static let routes = SandboxRoutes(
        [
            SandboxRoute("GET", "/2/groups", v2Groups), SandboxRoute("GET", "/2/groups.json", v2Groups),
            SandboxRoute("POST", "/gql-ext", graphQL), SandboxRoute("POST", "/gql") { _, _, _ in retiredEndpoint },
        ],
        methodNotAllowed: { request in
            .json(["code": "method_not_allowed", "problem": .string("\(request.method) is not supported here")], status: 405)
        })

    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        // Only Meetup's own paths get Meetup's error shapes; other providers' paths at the root get theirs.
        guard request.path.hasPrefix("/gql") || request.path.hasPrefix("/2/groups") else { return nil }
        if request.path.hasPrefix("/gql") {
            return .json(["errors": [["message": .string("HTTP \(status) from the sandbox fault injector")]]], status: status)
        }
        if status == 400 {
            return .json(["code": "limit", "problem": "Rate limit exceeded", "details": "Too many requests; wait before retrying"], status: 400)
        }
        let body: JSONValue = ["code": "sandbox_fault", "problem": .string(HTTPStatus.reason(status)), "details": "injected by the sandbox"]
        return .json(body, status: status)
    }

    static let memo = SandboxResponseMemo()

    /// The bundled groups, parsed once.
    static let groups: [JSONValue] = (try? JSONParser().parse(MeetupSampleData.groupsJSON))?.array ?? []

    /// What search needs from each group, computed once rather than per request.
    struct IndexedGroup: Sendable {
        var group: JSONValue
        var graphQLNode: JSONValue
        var lat: Double?
        var lon: Double?
        var id: Int
        /// Folded topic url keys (v2 `topic=` matches these exactly).
        var topicKeys: [String]
        /// Folded name, description and topic names (GraphQL `query` matches inside these).
        var texts: [String]
    }

    static let index: [IndexedGroup] = groups.map { group in
        let topics = group["topics"]?.array ?? []
        return IndexedGroup(
            group: group, graphQLNode: graphQLNode(group), lat: group["lat"]?.double, lon: group["lon"]?.double, id: group["id"]?.int ?? 0,
            topicKeys: topics.compactMap { $0["urlkey"]?.string }.map { SandboxText.fold($0) },
            texts: ([group["name"]?.string, group["description"]?.string] + topics.map { $0["name"]?.string }).compactMap { $0 }
                .map { SandboxText.fold($0) })
    }

    /// The largest v2 `offset` (a page index) the sandbox accepts; beyond it a request is a 400, as a bad number is.
    static let maximumOffset = 1_000_000

    static let rateLimitHeaders: HTTPHeaders = [
        "X-RateLimit-Limit": "200", "X-RateLimit-Remaining": "199", "X-RateLimit-Reset": "3600",
    ]

    // MARK: API v2

    /// `GET /2/groups`. Answers depend only on the request and the base URL its links point to, so repeats reuse them.
    static func v2Groups(_ request: SandboxRequest, _ context: SandboxContext, _: [String]) -> SandboxResponse {
        memo.answer(for: SandboxResponseMemo.key(request, extra: [context.baseURL.absoluteString])) { () throws(SandboxExit) in
            try v2Page(request, context)
        }
    }

    /// The key, then the parameter rules Meetup documented (``MeetupV2Rules``), then a page of the nearby groups in
    /// the requested order, linked to the next by `meta.next`.
    static func v2Page(_ request: SandboxRequest, _ context: SandboxContext) throws(SandboxExit) -> SandboxResponse {
        let unauthorized = "You are not authorized to make that request"
        guard let key = request.queryValue("key") ?? request.queryValue("access_token"), !key.isEmpty else {
            throw v2Error(401, code: "not_authorized", problem: unauthorized, details: "No API key or OAuth token was supplied")
        }
        guard key == sandboxEnvironment["MEETUP_API_KEY"] else {
            throw v2Error(401, code: "not_authorized", problem: unauthorized, details: "Invalid API key")
        }
        try MeetupV2Rules.check(request)
        guard let lat = request.queryValue("lat").flatMap(Double.init), let lon = request.queryValue("lon").flatMap(Double.init) else {
            throw v2Error(400, code: "bad_request", problem: "Missing required parameters", details: "At least one of the required parameter(s) must be supplied: lat and lon, zip, group_urlname, topic, ...")
        }
        let radius = request.queryValue("radius").flatMap(Double.init) ?? 25
        guard (0...100).contains(radius) else {
            throw v2Error(400, code: "bad_request", problem: "Invalid radius", details: "radius must be between 0.0 and 100.0 miles")
        }
        let pageText = request.queryValue("page") ?? "200", offsetText = request.queryValue("offset") ?? "0"
        guard let pageSize = SandboxNumbers.integer(pageText, in: 1...200), let offset = SandboxNumbers.integer(offsetText, in: 0...maximumOffset)
        else {
            throw v2Error(400, code: "bad_request", problem: "Invalid paging", details: "page must be 1-200 and offset 0-\(maximumOffset)")
        }
        let near = nearby(lat: lat, lon: lon, radius: radius, text: request.queryValue("topic"), matchTopicKeys: true)
        let matches = MeetupV2Rules.ordered(near.map(\.group), request: request)
        let pageItems = SandboxPaging.page(matches, number: offset + 1, size: pageSize)
        let nextQuery = request.query.filter { $0.name != "offset" } + [(name: "offset", value: String(offset + 1))]
        let meta: JSONValue = [
            "next": .string((offset + 1) * pageSize < matches.count ? url(context.baseURL, nextQuery) : ""),
            "method": "Groups",
            "total_count": .int(matches.count),
            "link": .string(context.baseURL.appendingEndpoint("/2/groups").absoluteString),
            "count": .int(pageItems.count),
            "description": "None",
            "lon": .double(lon),
            "title": "Meetup Groups v2",
            "url": .string(url(context.baseURL, request.query)),
            "id": "",
            // When the newest of these groups changed (the samples keep only `created`), not the time of the request.
            "updated": .number(String(matches.compactMap { $0["created"]?.int }.max() ?? 0)),
            "lat": .double(lat),
        ]
        return .json(["results": .array(Array(pageItems)), "meta": meta], headers: rateLimitHeaders)
    }

    /// API v2's error body, thrown to answer at once.
    static func v2Error(_ status: Int, code: String, problem: String, details: String) -> SandboxExit {
        SandboxExit(.json(
            ["details": .string(details), "code": .string(code), "problem": .string(problem)], status: status, headers: rateLimitHeaders))
    }

    private static func url(_ base: URL, _ query: [(name: String, value: String)]) -> String {
        base.appendingEndpoint("/2/groups").appendingQuery(query.map { ($0.name, $0.value) }).absoluteString
    }

    // MARK: GraphQL

    /// `POST /gql-ext`. Answers depend only on the token and the body, so repeats of small requests reuse them.
    static func graphQL(_ request: SandboxRequest, _ context: SandboxContext, _: [String]) throws(SandboxExit) -> SandboxResponse {
        guard request.body.count <= 16 << 10 else { return try graphQLAnswer(request) }
        let key = SandboxResponseMemo.key(request, extra: [request.bearerToken ?? "", String(decoding: request.body, as: UTF8.self)])
        return memo.answer(for: key) { () throws(SandboxExit) in try graphQLAnswer(request) }
    }

    /// The bearer token, then the `groupSearch` or `self` query.
    static func graphQLAnswer(_ request: SandboxRequest) throws(SandboxExit) -> SandboxResponse {
        try request.requireBearer(sandboxEnvironment["MEETUP_TOKEN"] ?? "") { sent in
            let message = sent == nil ? "Not authenticated: an Authorization: Bearer token is required" : "Invalid or expired token"
            return .json(["errors": [["message": .string(message), "extensions": ["code": "UNAUTHENTICATED"]]]], status: 401)
        }
        guard let graphQL = request.graphQL else {
            return .json(["errors": [["message": "Invalid request: the body must be JSON with a 'query' string", "extensions": ["classification": "InvalidSyntax"]]]], status: 400)
        }
        if graphQL.query.contains("groupSearch") { return groupSearch(graphQL.variables) }
        if graphQL.query.contains("self") {
            return .json(["data": ["self": ["id": "100000001", "name": "Sandbox User", "city": "London", "country": "gb"]]])
        }
        return validationError("Validation error: the sandbox supports only the groupSearch and self queries", line: 1, column: 1)
    }

    static func groupSearch(_ variables: JSONValue) -> SandboxResponse {
        guard let text = variables["query"]?.string else {
            return validationError("Variable 'query' has an invalid value: Variable 'query' has coerced Null value for NonNull type 'String!'", line: 1, column: 17)
        }
        guard let lat = variables["lat"]?.double, let lon = variables["lon"]?.double else {
            return validationError("Variable 'lat' has an invalid value: Expected a value that can be converted to type 'Float' but it was a 'String'", line: 1, column: 66)
        }
        let radius = variables["radius"]?.double ?? 25
        guard (-90...90).contains(lat), (-180...180).contains(lon), radius.isFinite, radius >= 0 else {
            return validationError("Variable 'lat', 'lon' or 'radius' has an invalid value: Float cannot represent a non-finite or out-of-range value", line: 1, column: 66)
        }
        let firstValue = variables["first"] ?? .null
        guard firstValue.isNull || SandboxNumbers.integer(firstValue, in: 1...SandboxNumbers.graphQLIntRange.upperBound) != nil else {
            return validationError("Variable 'first' must be a positive 32-bit Int, not \(JSONWriter().string(firstValue))", line: 1, column: 50)
        }
        var offset = 0
        if let cursor = variables["cursor"]?.string {
            guard let decoded = Data(base64Encoded: cursor).flatMap({ String(data: $0, encoding: .utf8) })
                .flatMap({ SandboxNumbers.integer($0, in: 0...Int(Int32.max)) })
            else {
                return validationError("Invalid cursor '\(cursor)'", line: 1, column: 31)
            }
            offset = decoded
        }
        let matches = nearby(lat: lat, lon: lon, radius: radius, text: text.isEmpty ? nil : text, matchTopicKeys: false)
        let pageItems = SandboxPaging.slice(matches, offset: offset, limit: firstValue.int ?? 20)
        let end = min(offset, matches.count) + pageItems.count
        let search: JSONValue = [
            "pageInfo": ["hasNextPage": .bool(end < matches.count), "endCursor": .string(Data(String(end).utf8).base64EncodedString())],
            // As the real API does, totalCount reports the page size rather than all matches.
            "totalCount": .int(pageItems.count),
            "edges": .array(pageItems.map { ["node": $0.graphQLNode] }),
        ]
        return .json(["data": ["groupSearch": search]], headers: ["Content-Type": "application/json;charset=utf-8"])
    }

    /// The GraphQL shape of a bundled v2 group.
    static func graphQLNode(_ group: JSONValue) -> JSONValue {
        let founded = group["created"]?.double.map { ISO8601.string(from: Date(timeIntervalSince1970: $0 / 1000)) }
        return [
            "id": .string(group["id"]?.idString ?? ""),
            "name": group["name"] ?? .null,
            "urlname": group["urlname"] ?? .null,
            "link": group["link"] ?? .null,
            // gql-ext descriptions are plain text, not HTML.
            "description": .string(PlainText.fromHTML(group["description"]?.string) ?? ""),
            "city": group["city"] ?? .null,
            "state": group["state"] ?? "",
            "country": .string(group["country"]?.string?.lowercased() ?? ""),
            "lat": group["lat"] ?? .null,
            "lon": group["lon"] ?? .null,
            "memberships": ["totalCount": group["members"] ?? 0],
            "foundedDate": .optional(founded),
            "timezone": group["timezone"] ?? .null,
            "joinMode": .string(group["join_mode"]?.string?.uppercased() ?? "OPEN"),
            "isPrivate": .bool(group["visibility"]?.string != "public"),
            "membershipMetadata": .null,
            "organizer": group["organizer"].map { ["id": .string($0["member_id"]?.idString ?? ""), "name": $0["name"] ?? .null] } ?? .null,
            "keyGroupPhoto": group["group_photo"].map { ["id": .string($0["photo_id"]?.idString ?? ""), "baseUrl": "https://secure-content.meetupstatic.com/images/classic-events/"] } ?? .null,
            "topicCategory": group["category"].map { ["id": .string($0["id"]?.idString ?? ""), "name": $0["name"] ?? .null] } ?? .null,
        ]
    }

    static func validationError(_ message: String, line: Int, column: Int) -> SandboxResponse {
        .json([
            "errors": [[
                "message": .string(message),
                "locations": [["line": .int(line), "column": .int(column)]],
                "extensions": ["classification": "ValidationError"],
            ]]
        ])
    }

    static let retiredEndpoint = SandboxResponse.json([
        "errors": [["message": "This API endpoint is deprecated and will be turned off soon. You need to either update your app or migrate to the new API. For migration instructions, please visit: https://www.meetup.com/api/guide/#p06-migration-guide"]]
    ], status: 503)

    // MARK: Search

    /// Groups within `radius` miles of the point, nearest first, optionally matching `text`.
    static func nearby(lat: Double, lon: Double, radius: Double, text: String?, matchTopicKeys: Bool) -> [IndexedGroup] {
        let needle = text.map { SandboxText.fold($0) }
        return index.compactMap { group -> (IndexedGroup, Double)? in
            guard let groupLat = group.lat, let groupLon = group.lon else { return nil }
            let distance = miles(lat, lon, groupLat, groupLon)
            guard distance <= radius else { return nil }
            if let needle, !needle.isEmpty {
                let found = matchTopicKeys ? group.topicKeys.contains(needle) : group.texts.contains { $0.contains(needle) }
                guard found else { return nil }
            }
            return (group, distance)
        }
        .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.id < $1.0.id }
        .map(\.0)
    }

    /// Great-circle distance in miles.
    static func miles(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 3958.8 * 2 * atan2(sqrt(a), sqrt(1 - a))
    }
}
