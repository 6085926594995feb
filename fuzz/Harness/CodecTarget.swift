import Foundation
@testable import KeychainFSControlChannel
import KeychainFSEngine
import KeychainFSModel

/// ValueCodec: decoding never crashes, and whatever decodes re-encodes to bytes that decode to the same
/// encoding (compared as bytes: a date may be NaN, which is not equal to itself).
enum CodecTarget {
    static func run(_ data: Data) throws(PropertyViolation) {
        guard let value = try? ValueCodec.decode(data) else { return }
        let encoded = ValueCodec.encode(value)
        guard let again = try? ValueCodec.decode(encoded) else {
            throw PropertyViolation("re-encoded value does not decode")
        }
        guard ValueCodec.encode(again) == encoded else {
            throw PropertyViolation("encoding is not stable across a round trip")
        }
        _ = try? ControlRequest(decoding: value)
        _ = try? ControlResponse(decoding: value)
    }
}
