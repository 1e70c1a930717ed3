import AggregateCore
import Foundation

/// Pure functions from Meetup response bodies to items, pages and errors.
enum MeetupNormalizer {
    // MARK: API v2

    /// A `GET /2/groups` body: `{"results": [...], "meta": {"next": "<url>" or "", "total_count": N, ...}}`.
    static func v2Groups(_ json: JSONValue) throws -> Page {
        guard let results = json["results"]?.array else {
            if let problem = v2Problem(json) {
                throw AggregateError(.http, "the API returned an error: \(problem)")
            }
            throw AggregateError(.decoding, "the response has no 'results' list (not an API v2 groups response)")
        }
        let meta = json["meta"]
        // The v2 envelope is shared by every method: refuse e.g. an Events page instead of misreading it as groups.
        if let method = meta?["method"]?.nonEmptyString, method != "Groups" {
            throw AggregateError(.decoding, "expected an API v2 Groups response, got \(method)")
        }
        return Page(items: results.compactMap(v2Group), next: v2Next(meta), totalCount: meta?["total_count"]?.int)
    }

    /// The next page from `meta.next`: a full URL whose `offset` is the next page index, or "" at the end.
    static func v2Next(_ meta: JSONValue?) -> Page.Next? {
        guard let next = meta?["next"]?.nonEmptyString else { return nil }
        if let offset = URL(string: next)?.queryValue("offset"), Int(offset) != nil { return .cursor(offset) }
        // A next link without an offset: count pages ourselves from the current one.
        let current = meta?["url"]?.string.flatMap { URL(string: $0)?.queryValue("offset") }.flatMap(Int.init) ?? 0
        return .cursor(String(current + 1))
    }

    /// One v2 group; `nil` for an entry without an id or a name.
    static func v2Group(_ group: JSONValue) -> Item? {
        guard let id = group["id"]?.idString, let name = group["name"]?.nonEmptyString else { return nil }
        var item = Item(provider: "meetup", kind: "group", id: id, title: name)
        item.subtitle = group["who"]?.nonEmptyString
        item.summary = PlainText.fromHTML(group["description"]?.string)
        item.url = group["link"]?.nonEmptyString
        item.imageUrl = group["group_photo"]?["photo_link"]?.nonEmptyString ?? group["group_photo"]?["highres_link"]?.nonEmptyString
        item.author = group["organizer"]?["name"]?.nonEmptyString
        item.createdAt = group["created"]?.double.map { Date(timeIntervalSince1970: $0 / 1000) }
        item.location = Location(
            city: group["city"]?.nonEmptyString, country: countryCode(group["country"]?.nonEmptyString),
            latitude: group["lat"]?.double, longitude: group["lon"]?.double
        ).nonEmpty
        item.metrics = metrics(members: group["members"], rating: group["rating"])
        item.tags = group["topics"]?.array?.compactMap { $0["name"]?.nonEmptyString } ?? []
        var extra = JSONObject()
        extra.set("urlname", group["urlname"]?.nonEmptyString.map(JSONValue.string))
        extra.set("category", group["category"]?["name"]?.nonEmptyString.map(JSONValue.string))
        extra.set("joinMode", group["join_mode"]?.nonEmptyString.map { .string($0.lowercased()) })
        extra.set("timezone", group["timezone"]?.nonEmptyString.map(JSONValue.string))
        item.extra = extra
        return item
    }

    // MARK: GraphQL

    /// A `groupSearch` body. `errors` at HTTP 200 are errors, not empty results.
    static func graphQLGroups(_ json: JSONValue) throws -> Page {
        if let error = graphQLError(json) { throw error }
        guard let search = json["data"]?["groupSearch"], let edges = search["edges"]?.array else {
            throw AggregateError(.decoding, "the response has no data.groupSearch.edges (not a groupSearch response)")
        }
        let items = edges.compactMap { graphQLGroup($0["node"] ?? .null) }
        let info = search["pageInfo"]
        var next: Page.Next?
        if info?["hasNextPage"]?.bool == true, let cursor = info?["endCursor"]?.nonEmptyString { next = .cursor(cursor) }
        // groupSearch.totalCount has been seen to equal the page size, not the number of matches: not reported.
        return Page(items: items, next: next, totalCount: nil)
    }

    static func graphQLGroup(_ node: JSONValue) -> Item? {
        guard let id = node["id"]?.idString, let name = node["name"]?.nonEmptyString else { return nil }
        var item = Item(provider: "meetup", kind: "group", id: id, title: name)
        let urlname = node["urlname"]?.nonEmptyString
        item.url = node["link"]?.nonEmptyString ?? urlname.map { "https://www.meetup.com/\($0)/" }
        item.summary = PlainText.fromHTML(node["description"]?.string)
        item.author = node["organizer"]?["name"]?.nonEmptyString
        item.imageUrl = photoURL(node["keyGroupPhoto"])
        item.createdAt = node["foundedDate"]?.string.flatMap(ISO8601.date(from:))
        item.location = Location(
            city: node["city"]?.nonEmptyString, country: countryCode(node["country"]?.nonEmptyString),
            latitude: node["lat"]?.double, longitude: node["lon"]?.double
        ).nonEmpty
        item.metrics = metrics(members: node["memberships"]?["totalCount"], rating: nil)
        var extra = JSONObject()
        extra.set("urlname", urlname.map(JSONValue.string))
        extra.set("category", node["topicCategory"]?["name"]?.nonEmptyString.map(JSONValue.string))
        extra.set("joinMode", node["joinMode"]?.nonEmptyString.map { .string($0.lowercased()) })
        extra.set("timezone", node["timezone"]?.nonEmptyString.map(JSONValue.string))
        extra.set("isPrivate", node["isPrivate"]?.bool.map(JSONValue.bool))
        item.extra = extra
        return item
    }

    /// A GraphQL photo's URL: `baseUrl` is a folder, completed with the photo id and a size.
    static func photoURL(_ photo: JSONValue?) -> String? {
        guard let base = photo?["baseUrl"]?.nonEmptyString, let id = photo?["id"]?.idString else { return nil }
        return (base.hasSuffix("/") ? base : base + "/") + "\(id)/676x380.jpg"
    }

    /// The error in a GraphQL `errors` list, if there is one.
    static func graphQLError(_ json: JSONValue, status: Int? = nil) -> AggregateError? {
        guard let errors = json["errors"]?.array, !errors.isEmpty else { return nil }
        let messages = errors.compactMap { $0["message"]?.nonEmptyString }
        let message = messages.isEmpty ? "an unspecified error" : messages.joined(separator: "; ")
        let lowered = message.lowercased()
        if lowered.contains("rate") && lowered.contains("limit") {
            return AggregateError(.rateLimited, "the GraphQL API's rate limit was reached: \(message)", httpStatus: status)
        }
        if status == 401 || lowered.contains("unauthorized") || lowered.contains("not authenticated") {
            return AggregateError(.auth, "the token was rejected\(status.map { " (HTTP \($0))" } ?? ""): \(message). Check MEETUP_TOKEN.", httpStatus: status)
        }
        let where_ = status.map { " (HTTP \($0))" } ?? ""
        return AggregateError(.http, "the GraphQL API returned an error\(where_): \(message)", httpStatus: status)
    }

    // MARK: Errors

    /// The error for an unsuccessful response, using Meetup's own message when the body has one.
    static func error(for response: HTTPResponse, api: MeetupProvider.API) -> AggregateError {
        let status = response.status
        let json = try? JSONParser().parse(response.body)
        if api == .graphql, let json, let error = graphQLError(json, status: status) {
            return error
        }
        switch status {
        case 401:
            return api == .v2
                ? AggregateError(.auth, "the API key was rejected (HTTP 401). Check MEETUP_API_KEY.", httpStatus: status)
                : AggregateError(.auth, "the token was rejected (HTTP 401). Check MEETUP_TOKEN.", httpStatus: status)
        case 400 where json?["code"]?.string == "limit":
            return AggregateError(.rateLimited, "the API's rate limit was exceeded (HTTP 400, code \"limit\"); wait a while before retrying", httpStatus: status)
        case 400:
            let detail = json.flatMap(v2Problem).map { ": \($0)" } ?? ""
            return AggregateError(.http, "the API rejected the request (HTTP 400)\(detail)", httpStatus: status)
        case 429, 404:
            return AggregateError.generic(for: response, descriptor: MeetupProvider.descriptor)
        default:
            if let problem = json.flatMap(v2Problem), json?["code"] != nil {
                return AggregateError(.http, "the API answered HTTP \(status): \(problem)", httpStatus: status)
            }
            return AggregateError.generic(for: response, descriptor: MeetupProvider.descriptor)
        }
    }

    /// `problem: details` from a v2 error body (`{"code", "problem", "details"}`).
    static func v2Problem(_ json: JSONValue) -> String? {
        let parts = [json["problem"]?.nonEmptyString, json["details"]?.nonEmptyString].compactMap { $0 }
        if !parts.isEmpty { return parts.joined(separator: ": ") }
        return json["code"]?.nonEmptyString.map { "code \"\($0)\"" }
    }

    // MARK: Shared

    private static func metrics(members: JSONValue?, rating: JSONValue?) -> [String: Decimal] {
        var metrics: [String: Decimal] = [:]
        if let members = members?.decimal { metrics["members"] = members }
        // Meetup reports 0 for groups nobody has rated: that is "unknown", not a rating of zero.
        if let rating = rating?.decimal, rating > 0 { metrics["rating"] = rating }
        return metrics
    }

    /// ISO country codes in upper case (GraphQL sends "es", v2 "ES"); names are kept as they are.
    private static func countryCode(_ text: String?) -> String? {
        guard let text else { return nil }
        return text.count == 2 ? text.uppercased() : text
    }
}
