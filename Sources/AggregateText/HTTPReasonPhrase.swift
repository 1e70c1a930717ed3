/// The standard reason phrases of HTTP status codes, for status lines and generic error bodies: the one table the
/// sandbox's emulators (`HTTPStatus`) and the package's HTTP server share.
public enum HTTPReasonPhrase {
    /// The standard reason phrase of `status`, e.g. `Too Many Requests`.
    public static func of(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default:
            switch status {
            case 200..<300: return "Success"
            case 300..<400: return "Redirection"
            case 400..<500: return "Client Error"
            default: return "Server Error"
            }
        }
    }
}
