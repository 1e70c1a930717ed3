public import AggregateCore
import AggregateJSON
import AggregateRendering
import Foundation

/// Meetup groups near a location, from the legacy REST API v2 (the original tutorials' API) or the current
/// GraphQL API (`gql-ext`).
public struct MeetupProvider: Provider, ProviderTextView {
    static let lat = ParameterKey<Double>("lat", type: .number(-90...90), required: true, valueName: "DEGREES", help: "Latitude of the point.")
    static let lon = ParameterKey<Double>("lon", type: .number(-180...180), required: true, valueName: "DEGREES", help: "Longitude of the point.")
    static let radius = ParameterKey<Double>("radius", type: .number(0...100), default: "25", valueName: "MILES", help: "Search radius in miles.")
    static let text = ParameterKey<String>(
        "query", valueName: "TEXT",
        help: "Only groups matching this text (GraphQL 'query'; sent as 'topic' to API v2, where it must be a topic key such as 'python').")
    static let api = ParameterKey<API>(
        "api", valueName: "API", help: "Which API to call. Without it: graphql when MEETUP_TOKEN is set, else v2 when MEETUP_API_KEY is set.")

    /// The descriptor's name, stated without making the descriptor.
    public static let providerName = "meetup"

    public static let descriptor = ProviderDescriptor(
        name: "meetup",
        displayName: "Meetup",
        summary: "Meetup groups near a location (GraphQL gql-ext, or the legacy REST API v2).",
        docsURL: "https://www.meetup.com/api/guide/",
        defaultBaseURL: "https://api.meetup.com",
        auth: [
            AuthVariable(
                "MEETUP_TOKEN", usage: "OAuth2 access token, sent as 'Authorization: Bearer' to the GraphQL API.",
                sent: .bearer, required: true, label: "GraphQL API"),
            AuthVariable(
                "MEETUP_API_KEY",
                usage: "API key, sent as the key= query parameter to API v2 (retired by Meetup in 2019; compatible servers and the sandbox still speak it).",
                sent: .queryParameter("key"), required: true, label: "API v2"),
        ],
        authStyle: "OAuth2 bearer token (GraphQL) or key= query parameter (v2)",
        paginationStyle: "cursor (GraphQL pageInfo.endCursor) or offset via meta.next (v2)",
        options: [api.declaration],
        operations: [ProviderOperation(name: "groups", summary: "Groups near a point.", itemKind: "group", declaring: [lat, lon, radius, text], cost: RequestCost(pageSize: 200))],
        cacheFreshness: CacheFreshness(defaultSeconds: 900),
        examples: [
            ProviderExample(["meetup", "groups", "--lat", "51.509980", "--lon", "-0.133700"], "Groups near Piccadilly Circus, London (the original tutorial's query)."),
            ProviderExample(["meetup", "--lat", "48.8566", "--lon", "2.3522", "--radius", "10", "--limit", "5"], "Five groups within 10 miles of Paris."),
            ProviderExample(["meetup", "groups", "--lat", "51.5", "--lon", "-0.12", "--query", "photography", "--api", "graphql"], "London photography groups through the GraphQL API."),
        ],
        metrics: ["members", "rating"])

    public init() {}

    /// Which API a run uses: the plan.
    public enum API: String, ParameterChoice, Sendable {
        case graphql
        case v2

        var credentialVariable: String { self == .graphql ? "MEETUP_TOKEN" : "MEETUP_API_KEY" }
    }

    /// `--api`, or else the API of the first credential that is set.
    public func plan(for query: Query, credentials: Credentials) throws -> API {
        guard let api = query[Self.api] else { return credentials.first?.variable.name == "MEETUP_TOKEN" ? .graphql : .v2 }
        guard credentials[api.credentialVariable] != nil else {
            throw AggregateError(.config, "--api \(api.rawValue) needs \(api.credentialVariable) to be set (or use --offline to see sample data)")
        }
        return api
    }

    public func credential(for plan: API, from credentials: Credentials) -> ResolvedCredential? { credentials[plan.credentialVariable] }

    public func operation(named name: String, plan: API) -> any APIOperation<API> {
        plan == .v2 ? V2Groups() : GraphQLGroups()
    }

    /// `GET /2/groups`: the page size stays fixed for a run, because v2's offset counts pages of that size.
    struct V2Groups: APIOperation {
        func request(_ call: Call<API>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            HTTPRequestSpec(url: call.url("/2/groups", [
                ("lat", call.text(lat) ?? "0"), ("lon", call.text(lon) ?? "0"), ("radius", call.text(radius) ?? "25"),
                ("page", String(min(call.limit, 200))), ("offset", cursor), ("topic", call[text]),
            ]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<API>) throws -> Page { try MeetupNormalizer.v2Groups(response.json()) }

        func error(for response: HTTPResponse, _ call: Call<API>) -> AggregateError? { MeetupNormalizer.error(for: response, api: .v2) }
    }

    /// `POST /gql-ext` with the `groupSearch` query.
    struct GraphQLGroups: APIOperation {
        func request(_ call: Call<API>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            var variables = JSONObject(pairs: [
                "query": .string(call[text] ?? ""), "lat": .number(call.text(lat) ?? "0"), "lon": .number(call.text(lon) ?? "0"),
                "radius": .number(call.text(radius) ?? "25"), "first": .int(min(call.limit, 200)),
            ])
            variables.set("cursor", cursor.map(JSONValue.string))
            let body: JSONValue = ["query": .string(MeetupGraphQL.groupSearch), "variables": .object(variables)]
            return .postJSON(url: call.url("/gql-ext"), body: body, isIdempotent: true)
        }

        func normalize(_ response: HTTPResponse, _ call: Call<API>) throws -> Page { try MeetupNormalizer.graphQLGroups(response.json()) }

        func error(for response: HTTPResponse, _ call: Call<API>) -> AggregateError? { MeetupNormalizer.error(for: response, api: .graphql) }
    }

    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        result.items.map { item in
            let place = [item.location?.city, item.location?.country].compactMap { $0 }.joined(separator: ", ")
            let parts = [item.title, item.subtitle, place.isEmpty ? nil : place, item.summary].compactMap { $0 }
            return TextRenderer.oneLine(parts, style: style) + "\n"
        }.joined()
    }
}

/// The GraphQL document the provider sends (fields as in Meetup's gql-ext `groupSearch`).
enum MeetupGraphQL {
    static let groupSearch = """
        query findGroups($query: String!, $cursor: String, $first: Int, $lat: Float!, $lon: Float!, $radius: Float) {
          groupSearch(after: $cursor, first: $first, filter: {query: $query, lat: $lat, lon: $lon, radius: $radius}) {
            pageInfo { hasNextPage endCursor }
            totalCount
            edges {
              node {
                id name urlname link description city state country lat lon memberships { totalCount } foundedDate timezone
                joinMode isPrivate organizer { id name } keyGroupPhoto { id baseUrl } topicCategory { id name }
              }
            }
          }
        }
        """
}
