import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import Foundation

/// The parameter rules Meetup documented for `GET /2/groups`: `lat`/`lon` "a valid latitude and longitude",
/// `radius` in miles ("default 25 -- maximum 100"), `order` one of `id` (newest first), `members` (largest first),
/// `name` or `location`, and `desc=true` to reverse it. A value that breaks them gets Meetup's catch-all 400
/// ("incorrect or missing parameters ... The response body will have more detail"). Parameters Meetup did not
/// document are ignored.
enum MeetupV2Rules {
    static let orders = ["id", "members", "name", "location"]

    /// Exits with the 400 for the first documented parameter with an invalid value.
    static func check(_ request: SandboxRequest) throws(SandboxExit) {
        func invalid(_ name: String, _ value: String, _ rule: String) -> SandboxExit {
            MeetupSandbox.v2Error(400, code: "bad_request", problem: "Invalid \(name)", details: "\(name)=\(value): \(rule)")
        }
        for (name, range) in [("lat", -90.0...90.0), ("lon", -180.0...180.0)] {
            if let text = request.queryValue(name), !(Double(text).map(range.contains) ?? false) {
                throw invalid(name, text, "must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
            }
        }
        if let text = request.queryValue("radius"), Double(text) == nil {
            throw invalid("radius", text, "must be a number of miles (at most 100)")
        }
        if let text = request.queryValue("order"), !orders.contains(text) {
            throw invalid("order", text, "must be one of \(orders.joined(separator: ", "))")
        }
        if let text = request.queryValue("desc"), !["true", "false", "desc"].contains(text) {
            throw invalid("desc", text, "must be true or false")
        }
    }

    /// `groups` (nearest first) in the requested `order`, reversed by `desc`.
    static func ordered(_ groups: [JSONValue], request: SandboxRequest) -> [JSONValue] {
        func id(_ group: JSONValue) -> Int { group["id"]?.int ?? 0 }
        var result: [JSONValue]
        switch request.queryValue("order") {
        case "id":
            // "group creation time [newest first]"
            result = groups.sorted { ($0["created"]?.int ?? 0, id($0)) > ($1["created"]?.int ?? 0, id($1)) }
        case "members": result = groups.sorted { ($0["members"]?.int ?? 0, id($1)) > ($1["members"]?.int ?? 0, id($0)) }
        case "name":
            result = groups.sorted {
                let (a, b) = ($0["name"]?.string ?? "", $1["name"]?.string ?? "")
                return a.localizedCaseInsensitiveCompare(b) == .orderedSame ? id($0) < id($1) : a.localizedCaseInsensitiveCompare(b) == .orderedAscending
            }
        default: result = groups
        }
        if ["true", "desc"].contains(request.queryValue("desc") ?? "") { result.reverse() }
        return result
    }
}
