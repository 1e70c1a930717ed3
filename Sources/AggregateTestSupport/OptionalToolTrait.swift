public import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only when `tools` are installed or required (`AGGREGATE_REQUIRE_<NAME>=1`); otherwise it is
    /// skipped with the reason shown by `swift test`.
    public static func requires(_ tools: OptionalTool...) -> Self {
        .enabled(if: OptionalTool.shouldRun(tools), Comment(rawValue: OptionalTool.skipReason(tools)))
    }
}
