import Foundation

/// Fault specs: parsing never traps, and a parsed fault's description parses back to the same fault.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFaultSpec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let fault = try? SandboxFault.parse(text) else { return 0 }
    guard let again = try? SandboxFault.parse(fault.description) else { fatalError("description does not parse: \(fault)") }
    guard again == fault else { fatalError("round trip changed the fault: \(fault) vs \(again)") }
    return 0
}
