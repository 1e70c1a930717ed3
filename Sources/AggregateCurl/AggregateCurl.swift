// AggregateCurl: the executable's live transport on Linux, `CurlTransport`, over libcurl's C API opened with dlopen
// (CCurlShim) when the first request goes out. The executable links no FoundationNetworking, so `--version`,
// `--offline`, cache hits, `--replay`, `browse FILE` and the rest never load libcurl and its ~30 libraries (OpenSSL
// among them); the static build needs no libcurl at all to link. Linux code, `package` only: apps use
// AggregateURLSession.
// May import: AggregateText, AggregateCore, AggregateHTTP, CCurlShim, Foundation, Dispatch, Glibc
