extension SandboxResponseMemo {
    /// The answer for `key`, made by `make` the first time. `make` may answer early by throwing ``SandboxExit``
    /// (a missing key, a bad parameter); that answer is kept like any other, so a repeated bad request is as cheap
    /// as a repeated good one.
    public func answer(for key: String, _ make: () throws(SandboxExit) -> SandboxResponse) -> SandboxResponse {
        response(for: key) {
            do throws(SandboxExit) {
                return try make()
            } catch {
                return error.response
            }
        }
    }
}
