import AggregateCore
#if os(Linux)
import AggregateCurl
#else
import AggregateURLSession
#endif

/// The live transport of every command. On Linux it is libcurl opened by the first request (AggregateCurl), so a run
/// that sends nothing loads no networking library; elsewhere URLSession, which the system provides.
func makeNetworkTransport() -> any HTTPTransport {
    #if os(Linux)
    CurlTransport()
    #else
    URLSessionTransport()
    #endif
}
