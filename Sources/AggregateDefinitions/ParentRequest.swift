import AggregateCore
public import AggregateJSON
import Foundation

/// An operation's `parent` (dlt's `resolve`, Airbyte's substream): another operation of the definition is asked
/// first, and each of its records fills parameters of this operation's request, one child request (and its pages)
/// per parent record.
///
/// ```json
/// "parent": {"operation": "users", "parameters": {"username": "login"}, "fields": {"user": "login"}, "limit": 5}
/// ```
public struct ParentRequest: Sendable, Equatable {
    /// A name and the path into a parent record its value comes from.
    public struct Binding: Sendable, Equatable {
        /// The child's placeholder (in `parameters`) or the item's `extra` key (in `fields`).
        public var name: String
        /// Where the value is in a parent record.
        public var path: JSONPath
    }

    /// The operation asked first. Its parameters take this operation's values of the same names.
    public var operation: String
    /// The child's request parameters (placeholders in its path, query and headers) filled from each parent record.
    public var parameters: [Binding]
    /// Parent fields copied into each child item's `extra` (e.g. the user a repository was found through).
    public var fields: [Binding]
    /// The most parent records used: the declared cap on the fan-out.
    public var limit: Int
    /// The pointer of the declaration, for problems found once every operation is read.
    var pointer: String

    /// The largest `limit` a definition may declare.
    static let maximumLimit = 1000

    /// Reads `parent`; the names it fills must not be the operation's own parameters.
    static func reading(_ reader: DefinitionReader, declared: [String]) throws(DefinitionProblem) -> ParentRequest {
        let fields = try reader.object(allowed: ["operation", "parameters", "fields", "limit"], required: ["operation", "parameters", "limit"])
        func bindings(_ key: String) throws(DefinitionProblem) -> [Binding] {
            try fields[key]?.members().map { (member) throws(DefinitionProblem) in Binding(name: member.key, path: try member.value.jsonPath()) } ?? []
        }
        let parameters = try bindings("parameters")
        if parameters.isEmpty { throw fields.required("parameters").problem("must name at least one parameter the parent's records fill") }
        for binding in parameters where declared.contains(binding.name) {
            throw DefinitionProblem(
                fields.required("parameters").pointer(to: binding.name),
                "'\(binding.name)' is a parameter of this operation; a parameter the parent fills must not be declared too")
        }
        return ParentRequest(
            operation: try fields.required("operation").identifier(), parameters: parameters, fields: try bindings("fields"),
            limit: try fields.required("limit").integer(in: 1...maximumLimit), pointer: reader.pointer)
    }

    /// Checks every `parent` against the operations it names: another GET operation without a parent of its own,
    /// whose required parameters without defaults the child declares too (they are passed on by name).
    static func check(_ operations: [ProviderDefinition.Operation]) throws(DefinitionProblem) {
        for operation in operations {
            guard let parent = operation.parent else { continue }
            let at = parent.pointer + "/operation"
            guard let asked = operations.first(where: { $0.descriptor.name == parent.operation }), asked.descriptor.name != operation.descriptor.name else {
                let others = operations.map(\.descriptor.name).filter { $0 != operation.descriptor.name }
                throw DefinitionProblem(at, "'\(parent.operation)' is not another operation of this definition (operations: \(others.joined(separator: ", ")))")
            }
            guard asked.parent == nil else { throw DefinitionProblem(at, "'\(parent.operation)' has a parent itself; a parent must be a plain operation") }
            guard asked.method == "GET" else { throw DefinitionProblem(at, "'\(parent.operation)' sends \(asked.method); a parent must be a GET") }
            let own = operation.descriptor.parameters.map(\.name)
            for needed in asked.descriptor.parameters where needed.isRequired && needed.defaultValue == nil && !own.contains(needed.name) {
                throw DefinitionProblem(at, "'\(parent.operation)' needs the parameter '\(needed.name)', which '\(operation.descriptor.name)' does not declare")
            }
        }
    }
}

extension ProviderDefinition.Operation {
    /// This operation with its `parent`'s requests counted as lookups (`aggregate sql --plan`): the parent's pages
    /// for `limit` records, and one request per parent record beyond the child's full pages, since each parent's
    /// last page may hold fewer items than a full one (or none).
    func withParentCost(in operations: [ProviderDefinition.Operation]) -> ProviderDefinition.Operation {
        guard let parent, let asked = operations.first(where: { $0.descriptor.name == parent.operation }) else { return self }
        var copy = self
        copy.descriptor.cost.lookups += asked.descriptor.cost.pages(forLimit: parent.limit) + parent.limit
        return copy
    }
}
