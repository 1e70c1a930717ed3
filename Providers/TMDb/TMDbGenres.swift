/// TMDb's movie genre list (`GET /genre/movie/list`, English), which is fixed and public.
///
/// List results (`/search/movie`, `/movie/popular`) carry only `genre_ids`; details carry `genres` with names.
/// Keeping the list here saves a request per run.
enum TMDbGenres {
    /// Genre names by id.
    static let names: [Int: String] = [
        28: "Action", 12: "Adventure", 16: "Animation", 35: "Comedy", 80: "Crime", 99: "Documentary", 18: "Drama",
        10751: "Family", 14: "Fantasy", 36: "History", 27: "Horror", 10402: "Music", 9648: "Mystery", 10749: "Romance",
        878: "Science Fiction", 10770: "TV Movie", 53: "Thriller", 10752: "War", 37: "Western",
    ]

    /// The names of `ids` in their order; ids outside the list are skipped rather than given an invented name.
    static func names(for ids: [Int]) -> [String] {
        ids.compactMap { names[$0] }
    }
}
