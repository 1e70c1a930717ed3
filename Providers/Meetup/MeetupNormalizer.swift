import AggregateCore
import AggregateJSON
import AggregateText
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
        let photo = group["group_photo"], category = group["category"]?["name"]
        guard var item = item(group, category: category, joinMode: group["join_mode"], members: group["members"], rating: group["rating"]) else {
            return nil
        }
        item.subtitle = group["who"]?.nonEmptyString
        item.url = group["link"]?.nonEmptyString
        item.imageUrl = photo?["photo_link"]?.nonEmptyString ?? photo?["highres_link"]?.nonEmptyString
        item.createdAt = group["created"]?.double.map { Date(timeIntervalSince1970: $0 / 1000) }
        item.tags = group["topics"]?.array?.compactMap { $0["name"]?.nonEmptyString } ?? []
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
        let members = node["memberships"]?["totalCount"]
        guard var item = item(node, category: node["topicCategory"]?["name"], joinMode: node["joinMode"], members: members, rating: nil) else {
            return nil
        }
        item.url = node["link"]?.nonEmptyString ?? node["urlname"]?.nonEmptyString.map { "https://www.meetup.com/\($0)/" }
        item.imageUrl = photoURL(node["keyGroupPhoto"])
        item.createdAt = node["foundedDate"]?.string.flatMap(ISO8601.date(from:))
        item.extra.set("isPrivate", node["isPrivate"]?.bool.map(JSONValue.bool))
        return item
    }

    /// A GraphQL photo's URL: `baseUrl` is a folder, completed with the photo id and a size.
    static func photoURL(_ photo: JSONValue?) -> String? {
        guard let base = photo?["baseUrl"]?.nonEmptyString, let id = photo?["id"]?.idString else { return nil }
        return (base.hasSuffix("/") ? base : base + "/") + "\(id)/676x380.jpg"
    }

    /// The error in a GraphQL `errors` list, if there is one.
    static func graphQLError(_ json: JSONValue, status: Int? = nil) -> AggregateError? {
        guard let message = APIErrorKit.graphQLMessages(json)?.joined(separator: "; ") else { return nil }
        let lowered = message.lowercased(), origin = status.map { " (HTTP \($0))" } ?? ""
        if lowered.contains("rate") && lowered.contains("limit") {
            return AggregateError(.rateLimited, "the GraphQL API's rate limit was reached: \(message)", httpStatus: status)
        }
        if status == 401 || lowered.contains("unauthorized") || lowered.contains("not authenticated") {
            return AggregateError(.auth, "the token was rejected\(origin): \(message). Check MEETUP_TOKEN.", httpStatus: status)
        }
        return AggregateError(.http, "the GraphQL API returned an error\(origin): \(message)", httpStatus: status)
    }

    // MARK: Errors

    /// The error for an unsuccessful response, using Meetup's own message when the body has one.
    static func error(for response: HTTPResponse, api: MeetupProvider.API) -> AggregateError {
        let status = response.status
        let json = try? JSONParser().parse(response.body)
        if api == .graphql, let json, let error = graphQLError(json, status: status) {
            return error
        }
        let problem = json.flatMap(v2Problem)
        switch status {
        case 401:
            let rejected = api == .v2 ? "the API key was rejected" : "the token was rejected"
            return AggregateError(.auth, "\(rejected) (HTTP 401). Check \(api.credentialVariable).", httpStatus: status)
        case 400 where json?["code"]?.string == "limit":
            let message = "the API's rate limit was exceeded (HTTP 400, code \"limit\"); wait a while before retrying"
            return AggregateError(.rateLimited, message, httpStatus: status)
        case 400:
            return AggregateError(.http, "the API rejected the request (HTTP 400)\(problem.map { ": \($0)" } ?? "")", httpStatus: status)
        case 429, 404:
            return APIErrorKit.standard(for: response, descriptor: MeetupProvider.descriptor)
        default:
            guard let problem, json?["code"] != nil else { return APIErrorKit.standard(for: response, descriptor: MeetupProvider.descriptor) }
            return AggregateError(.http, "the API answered HTTP \(status): \(problem)", httpStatus: status)
        }
    }

    /// `problem: details` from a v2 error body (`{"code", "problem", "details"}`).
    static func v2Problem(_ json: JSONValue) -> String? {
        let parts = [json["problem"]?.nonEmptyString, json["details"]?.nonEmptyString].compactMap { $0 }
        if !parts.isEmpty { return parts.joined(separator: ": ") }
        return json["code"]?.nonEmptyString.map { "code \"\($0)\"" }
    }

    // MARK: Shared

    /// What a group is in both APIs, read from the names they share; each API passes the fields it names its own
    /// way. `nil` for an entry without an id or a name.
    private static func item(_ group: JSONValue, category: JSONValue?, joinMode: JSONValue?, members: JSONValue?, rating: JSONValue?) -> Item? {
        guard let id = group["id"]?.idString, let name = group["name"]?.nonEmptyString else { return nil }
        var item = Item(provider: "meetup", kind: "group", id: id, title: name)
        item.summary = PlainText.fromHTML(group["description"]?.string)
        item.author = group["organizer"]?["name"]?.nonEmptyString
        // ISO country codes in upper case (GraphQL sends "es", v2 "ES"); names are kept as they are.
        let country = group["country"]?.nonEmptyString.map { $0.count == 2 ? $0.uppercased() : $0 }
        item.location = Location(
            city: group["city"]?.nonEmptyString, country: country, latitude: group["lat"]?.double, longitude: group["lon"]?.double
        ).nonEmpty
        if let members = members?.decimal { item.metrics["members"] = members }
        // Meetup reports 0 for groups nobody has rated: that is "unknown", not a rating of zero.
        if let rating = rating?.decimal, rating > 0 { item.metrics["rating"] = rating }
        var extra = JSONObject()
        extra.set("urlname", group["urlname"]?.nonEmptyString.map(JSONValue.string))
        extra.set("category", category?.nonEmptyString.map(JSONValue.string))
        extra.set("joinMode", joinMode?.nonEmptyString.map { .string($0.lowercased()) })
        extra.set("timezone", group["timezone"]?.nonEmptyString.map(JSONValue.string))
        item.extra = extra
        return item
    }
}
