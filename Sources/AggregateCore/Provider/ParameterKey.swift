public import AggregateJSON
import Foundation

/// A type a parameter can be read as: `query[Meetup.lat]` is a `Double?`.
public protocol ParameterValue: Sendable {
    /// The parameter type the command line validates against.
    static var parameterType: Parameter.ValueType { get }
    /// Reads a validated value.
    init?(parameter value: JSONValue)
}

extension String: ParameterValue {
    public static var parameterType: Parameter.ValueType { .string }
    public init?(parameter value: JSONValue) {
        switch value {
        case .string(let text), .number(let text): self = text
        case .bool(let flag): self = flag ? "true" : "false"
        default: return nil
        }
    }
}

extension Int: ParameterValue {
    public static var parameterType: Parameter.ValueType { .integer(nil) }
    public init?(parameter value: JSONValue) {
        guard let number = value.int else { return nil }
        self = number
    }
}

extension Double: ParameterValue {
    public static var parameterType: Parameter.ValueType { .number(nil) }
    public init?(parameter value: JSONValue) {
        guard let number = value.double else { return nil }
        self = number
    }
}

extension Bool: ParameterValue {
    public static var parameterType: Parameter.ValueType { .boolean }
    public init?(parameter value: JSONValue) {
        guard let flag = value.bool else { return nil }
        self = flag
    }
}

extension Array: ParameterValue where Element == String {
    public static var parameterType: Parameter.ValueType { .choiceList([]) }
    public init?(parameter value: JSONValue) {
        guard let values = value.array?.compactMap(\.string) else { return nil }
        self = values
    }
}

/// A fixed list of words, such as an API variant: declare `enum API: String, CaseIterable, ParameterChoice`.
public protocol ParameterChoice: ParameterValue, RawRepresentable, CaseIterable where RawValue == String {}

extension ParameterChoice {
    public static var parameterType: Parameter.ValueType { .choice(allCases.map(\.rawValue)) }
    public init?(parameter value: JSONValue) {
        guard let text = value.string else { return nil }
        self.init(rawValue: text)
    }
}

/// Something that declares a parameter, so operations can list typed keys of different value types together.
public protocol ParameterDeclaration: Sendable {
    /// The parameter as the command line and `describe` see it.
    var declaration: Parameter { get }
}

extension Parameter: ParameterDeclaration {
    public var declaration: Parameter { self }
}

/// A parameter declared once and read typed: `static let lat = ParameterKey<Double>("lat", ...)`, then
/// `query[Self.lat]`. The compiler checks the name and the type at every use.
public struct ParameterKey<Value: ParameterValue>: ParameterDeclaration {
    public let declaration: Parameter

    /// Declares a parameter. `type` refines the value type (ranges, choices); by default it follows `Value`.
    /// `freeText` is ``Parameter/isFreeText`` (by default, whether it is a positional text parameter).
    public init(
        _ name: String, style: Parameter.Style = .option, type: Parameter.ValueType? = nil, required: Bool = false,
        default defaultValue: String? = nil, valueName: String? = nil, readsStandardInputOnDash: Bool = false,
        freeText: Bool? = nil, help: String
    ) {
        declaration = Parameter(
            name, style: style, type: type ?? Value.parameterType, required: required, default: defaultValue,
            valueName: valueName, readsStandardInputOnDash: readsStandardInputOnDash, freeText: freeText, help: help)
    }

    /// The parameter's name.
    public var name: String { declaration.name }
}

extension Query {
    /// The parameter `key` as its declared type, or `nil` when it was not given and has no default.
    public subscript<Value>(key: ParameterKey<Value>) -> Value? {
        parameters[key.name].flatMap(Value.init(parameter:))
    }

    /// The parameter `key` as typed on the command line (numbers keep their literal text, e.g. `51.509980`).
    public func text<Value>(_ key: ParameterKey<Value>) -> String? {
        parameters[key.name].flatMap(String.init(parameter:))
    }
}

extension ProviderOperation {
    /// Creates an operation from typed parameter declarations.
    public init(
        name: String, summary: String, itemKind: String, declaring parameters: [any ParameterDeclaration], writes: Bool = false,
        cost: RequestCost = RequestCost(pageSize: nil)
    ) {
        self.init(name: name, summary: summary, itemKind: itemKind, parameters: parameters.map(\.declaration), writes: writes, cost: cost)
    }
}
