public import AggregateCore
import Foundation

/// Meetup groups near a location, from the legacy REST API v2 (the original tutorials' API) or the current
/// GraphQL API (`gql-ext`).
public struct MeetupProvider: Provider {
    public static let descriptor = ProviderDescriptor(
        name: "meetup",
        displayName: "Meetup",
        summary: "Meetup groups near a location (GraphQL gql-ext, or the legacy REST API v2).",
        docsURL: "https://www.meetup.com/api/guide/",
        defaultBaseURL: "https://api.meetup.com",
        auth: [
            AuthVariable("MEETUP_TOKEN", usage: "OAuth2 access token, sent as 'Authorization: Bearer' to the GraphQL API."),
            AuthVariable("MEETUP_API_KEY", usage: "API key, sent as the key= query parameter to API v2 (retired by Meetup in 2019; compatible servers and the sandbox still speak it)."),
        ],
        authStyle: "OAuth2 bearer token (GraphQL) or key= query parameter (v2)",
        paginationStyle: "cursor (GraphQL pageInfo.endCursor) or offset via meta.next (v2)",
        options: [
            Parameter(
                "api", type: .choice(["graphql", "v2"]), valueName: "API",
                help: "Which API to call. Without it: graphql when MEETUP_TOKEN is set, else v2 when MEETUP_API_KEY is set.")
        ],
        operations: [
            ProviderOperation(
                name: "groups", summary: "Groups near a point.", itemKind: "group",
                parameters: [
                    Parameter("lat", type: .number(-90...90), required: true, valueName: "DEGREES", help: "Latitude of the point."),
                    Parameter("lon", type: .number(-180...180), required: true, valueName: "DEGREES", help: "Longitude of the point."),
                    Parameter("radius", type: .number(0...100), default: "25", valueName: "MILES", help: "Search radius in miles."),
                    Parameter(
                        "query", valueName: "TEXT",
                        help: "Only groups matching this text (GraphQL 'query'; sent as 'topic' to API v2, where it must be a topic key such as 'python')."),
                ])
        ],
        examples: [
            ProviderExample(["meetup", "groups", "--lat", "51.509980", "--lon", "-0.133700"], "Groups near Piccadilly Circus, London (the original tutorial's query)."),
            ProviderExample(["meetup", "--lat", "48.8566", "--lon", "2.3522", "--radius", "10", "--limit", "5"], "Five groups within 10 miles of Paris."),
            ProviderExample(["meetup", "groups", "--lat", "51.5", "--lon", "-0.12", "--query", "photography", "--api", "graphql"], "London photography groups through the GraphQL API."),
        ])

    public init() {}

    /// Which API a run uses, chosen in ``configure(_:)``.
    enum API: String {
        case graphql
        case v2
    }

    public func configure(_ query: inout Query) throws {
        let token = query.environmentValue("MEETUP_TOKEN")
        let key = query.environmentValue("MEETUP_API_KEY")
        let api: API
        switch query.string("api") {
        case "graphql"?:
            guard token != nil else { throw missingCredential("MEETUP_TOKEN", for: "--api graphql") }
            api = .graphql
        case "v2"?:
            guard key != nil else { throw missingCredential("MEETUP_API_KEY", for: "--api v2") }
            api = .v2
        default:
            if token != nil {
                api = .graphql
            } else if key != nil {
                api = .v2
            } else {
                throw AggregateError(
                    .config,
                    "no credentials: set MEETUP_TOKEN (GraphQL API) or MEETUP_API_KEY (API v2), or use --offline to see sample data")
            }
        }
        query.state["api"] = api.rawValue
    }

    private func missingCredential(_ variable: String, for option: String) -> AggregateError {
        AggregateError(.config, "\(option) needs \(variable) to be set (or use --offline to see sample data)")
    }

    private func api(_ query: Query) -> API { API(rawValue: query.state["api"] ?? "") ?? .v2 }

    public func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
        let lat = query.string("lat") ?? "0"
        let lon = query.string("lon") ?? "0"
        let radius = query.string("radius") ?? "25"
        switch api(query) {
        case .v2:
            // The page size stays fixed for a run: v2's offset counts pages of that size.
            var items: [(String, String)] = [
                ("lat", lat), ("lon", lon), ("radius", radius), ("page", String(min(query.limit, 200))),
            ]
            if let cursor { items.append(("offset", cursor)) }
            if let topic = query.string("query") { items.append(("topic", topic)) }
            return HTTPRequestSpec(
                url: query.baseURL.appendingEndpoint("/2/groups").appendingQuery(items),
                credential: query.environmentValue("MEETUP_API_KEY").map { .queryParameter(name: "key", value: $0) })
        case .graphql:
            var variables: JSONObject = JSONObject(pairs: [
                "query": .string(query.string("query") ?? ""),
                "lat": .number(lat), "lon": .number(lon), "radius": .number(radius),
                "first": .int(min(query.limit, 200)),
            ])
            if let cursor { variables["cursor"] = .string(cursor) }
            let body: JSONValue = ["query": .string(MeetupGraphQL.groupSearch), "variables": .object(variables)]
            return .postJSON(
                url: query.baseURL.appendingEndpoint("/gql-ext"), body: body, isIdempotent: true,
                credential: query.environmentValue("MEETUP_TOKEN").map(Credential.bearer))
        }
    }

    public func normalize(_ page: RawPage, for query: Query) throws -> Page {
        switch api(query) {
        case .v2: return try MeetupNormalizer.v2Groups(page.json())
        case .graphql: return try MeetupNormalizer.graphQLGroups(page.json())
        }
    }

    public func error(for response: HTTPResponse, query: Query) -> AggregateError {
        MeetupNormalizer.error(for: response, api: api(query))
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
