import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// Pure functions from TMDb response bodies to items and pages.
enum TMDbNormalizer {
    /// Results per page: TMDb's list endpoints always page by 20.
    static let pageSize = 20
    /// The highest page TMDb serves ("Pages start at 1 and max at 500", error code 22), whatever `total_pages` says.
    static let lastServedPage = 500

    // MARK: Lists

    /// A `/search/movie` or `/movie/popular` page: `{page, results, total_pages, total_results}`.
    /// - Parameter requestedPage: the page asked for, used when the body does not say.
    static func listPage(_ json: JSONValue, requestedPage: Int, imageBase: String) throws -> Page {
        if let error = TMDbErrors.bodyError(json, status: 200) { throw error }
        guard let results = json["results"]?.array else {
            throw AggregateError(.decoding, "the response has no 'results' list (not a TMDb movie list page)")
        }
        let items = results.compactMap { movie($0, imageBase: imageBase, details: false) }
        let page = json["page"]?.int ?? requestedPage
        // An empty search answers total_pages 1 (observed) or 0 (in many mocks): neither has a next page.
        let lastPage = min(json["total_pages"]?.int ?? page, lastServedPage)
        let next: Page.Next? = !results.isEmpty && page < lastPage
            ? .numberedPages(current: page, total: lastPage, pageSize: pageSize) : nil
        return Page(items: items, next: next, totalCount: json["total_results"]?.int)
    }

    // MARK: Details

    /// A `/movie/{id}?append_to_response=credits` body: one movie, with `credits.cast` and `credits.crew`.
    static func details(_ json: JSONValue, imageBase: String) throws -> Page {
        if let error = TMDbErrors.bodyError(json, status: 200) { throw error }
        guard let item = movie(json, imageBase: imageBase, details: true) else {
            throw AggregateError(.decoding, "the response is not a TMDb movie (it has no 'id' or no title)")
        }
        return Page(items: [item])
    }

    // MARK: One movie

    /// A movie from a list result (`details: false`) or a details body; `nil` without an id or any title.
    static func movie(_ movie: JSONValue, imageBase: String, details: Bool) -> Item? {
        guard let id = movie["id"]?.idString else { return nil }
        let originalTitle = movie["original_title"]?.nonEmptyString
        guard let title = movie["title"]?.nonEmptyString ?? originalTitle else { return nil }
        var item = Item(provider: "tmdb", kind: "movie", id: id, title: title)
        let differentOriginal = originalTitle.flatMap { $0 == title ? nil : $0 }
        item.subtitle = details ? movie["tagline"]?.nonEmptyString ?? differentOriginal : differentOriginal
        item.summary = PlainText.collapseWhitespace(movie["overview"]?.string)
        item.url = "https://www.themoviedb.org/movie/\(id)"
        item.imageUrl = TMDbImages.url(path: movie["poster_path"]?.nonEmptyString, base: imageBase)
        item.createdAt = releaseDate(movie["release_date"]?.string)
        item.metrics = metrics(movie)
        item.tags = details ? genreNames(movie["genres"]) : TMDbGenres.names(for: movie["genre_ids"]?.array?.compactMap(\.int) ?? [])
        var extra = JSONObject()
        extra.set("originalLanguage", movie["original_language"]?.nonEmptyString.map(JSONValue.string))
        extra.set("originalTitle", originalTitle.map(JSONValue.string))
        extra.set("adult", movie["adult"]?.bool.map(JSONValue.bool))
        if details, let credits = movie["credits"] {
            extra["directors"] = .array(directors(credits["crew"]).map(JSONValue.string))
            extra["cast"] = .array(cast(credits["cast"]))
        }
        item.extra = extra
        return item
    }

    /// `YYYY-MM-DD` as midnight UTC; `""` (unknown, common in search results) or anything else is no date.
    static func releaseDate(_ text: String?) -> Date? {
        guard let text, text.count == 10 else { return nil }
        return ISO8601.date(from: text)
    }

    /// popularity, voteAverage, voteCount, and runtime when the API knows it.
    static func metrics(_ movie: JSONValue) -> [String: Decimal] {
        var metrics: [String: Decimal] = [:]
        metrics["popularity"] = movie["popularity"]?.decimalWithoutLocale
        let voteCount = movie["vote_count"]?.decimalWithoutLocale
        metrics["voteCount"] = voteCount
        // An average of 0 from no votes is "not rated yet", not a rating of zero.
        if let average = movie["vote_average"]?.decimalWithoutLocale, voteCount.map({ $0 > 0 }) ?? (average > 0) {
            metrics["voteAverage"] = average
        }
        // TMDb sends 0 (sometimes null) for a runtime it does not know.
        if let runtime = movie["runtime"]?.decimalWithoutLocale, runtime > 0 { metrics["runtime"] = runtime }
        return metrics
    }

    /// Names from a details `genres` list; an entry without a name falls back to the fixed list by id.
    static func genreNames(_ genres: JSONValue?) -> [String] {
        (genres?.array ?? []).compactMap { genre in
            genre["name"]?.nonEmptyString ?? genre["id"]?.int.flatMap { TMDbGenres.names[$0] }
        }
    }

    /// The names of the crew whose job is `Director` (not `Co-Director` and the like), each once, in crew order.
    static func directors(_ crew: JSONValue?) -> [String] {
        var names: [String] = []
        for member in crew?.array ?? [] where member["job"]?.string == "Director" {
            if let name = member["name"]?.nonEmptyString, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The cast as `{name, character, order}` sorted by billing `order`; an empty character is omitted.
    static func cast(_ cast: JSONValue?) -> [JSONValue] {
        let members = (cast?.array ?? []).enumerated().compactMap { position, member -> (order: Int, position: Int, value: JSONValue)? in
            guard let name = member["name"]?.nonEmptyString else { return nil }
            let order = member["order"]?.int
            var entry = JSONObject()
            entry["name"] = .string(name)
            entry.set("character", member["character"]?.nonEmptyString.map(JSONValue.string))
            entry.set("order", order.map(JSONValue.int))
            // Entries without an order go after the billed ones, keeping the API's order among themselves.
            return (order ?? Int.max, position, .object(entry))
        }
        return members.sorted { ($0.order, $0.position) < ($1.order, $1.position) }.map(\.value)
    }
}

/// Poster URLs: `secure_base_url` + a size + `poster_path`, with the base and size read from `/configuration`.
enum TMDbImages {
    /// TMDb's documented image base, used offline and when `/configuration` does not say.
    static let documentedSecureBase = "https://image.tmdb.org/t/p/"
    /// The poster size used when `/configuration` lists it (or lists no sizes).
    static let preferredPosterSize = "w500"
    /// The documented base with the preferred size: what offline runs use without asking `/configuration`.
    static let defaultPosterBase = documentedSecureBase + preferredPosterSize

    /// The poster base (`https://image.tmdb.org/t/p/w500`) from a `/configuration` body.
    static func posterBase(fromConfiguration configuration: JSONValue) -> String {
        let images = configuration["images"]
        var base = images?["secure_base_url"]?.nonEmptyString ?? documentedSecureBase
        if !base.hasSuffix("/") { base += "/" }
        return base + posterSize(images?["poster_sizes"]?.array?.compactMap(\.string) ?? [])
    }

    /// `w500` when offered; else the largest width below it, else the smallest above it, else `original`.
    static func posterSize(_ sizes: [String]) -> String {
        if sizes.isEmpty || sizes.contains(preferredPosterSize) { return preferredPosterSize }
        let widths = sizes.compactMap { size -> (String, Int)? in
            guard size.hasPrefix("w"), let width = Int(size.dropFirst()) else { return nil }
            return (size, width)
        }
        if let below = widths.filter({ $0.1 < 500 }).max(by: { $0.1 < $1.1 }) { return below.0 }
        if let above = widths.min(by: { $0.1 < $1.1 }) { return above.0 }
        return sizes.contains("original") ? "original" : sizes[0]
    }

    /// The full URL of an image, or `nil` when the movie has none (`poster_path: null`).
    static func url(path: String?, base: String) -> String? {
        guard let path else { return nil }
        return base + (path.hasPrefix("/") ? path : "/" + path)
    }
}
