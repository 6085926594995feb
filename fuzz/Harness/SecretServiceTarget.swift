import Foundation
import KeychainFSSecretService

/// What the Secret Service reads from the bus and from kSecAttrGeneric (docs/secret-service.md): object
/// paths, argument trees, attribute records, encrypted secrets. Never a crash; values read back as written.
enum SecretServiceTarget {
    nonisolated(unsafe) static let roundTrip = BusValueRoundTrip()

    static func run(_ data: Data) throws(PropertyViolation) {
        if let problem = SecretServiceFuzzInputs.check(data, roundTrip: roundTrip) { throw PropertyViolation(problem) }
    }
}
