import Foundation
import KeychainFSModel
import Testing

/// The codec of sealed attributes and control frames: strings decode from their bytes (ASCII without a
/// validation pass), and bytes that are not UTF-8 are refused whatever path decodes them.
@Suite struct ValueCodecTests {
    @Test func stringsRoundTripAsciiAndNot() throws {
        let value: KeychainValue = .dictionary([
            "acct": "plain", "svce": "café ☕️ 鍵", "labl": "", "gena": .data(Data([0xff, 0x00])),
            "list": .array(["a", "ü", .number(-7), .bool(true)]),
        ])
        #expect(try ValueCodec.decode(ValueCodec.encode(value)) == value)
    }

    @Test func bytesThatAreNotUtf8AreRefused() {
        // Tag 1 (string), length 2, then an invalid sequence; then a truncated one; then a lone continuation.
        for body: [UInt8] in [[0xc3, 0x28], [0xe2, 0x82], [0x80, 0x41]] {
            let encoded = Data([1, 0, 0, 0, UInt8(body.count)] + body)
            #expect(throws: ValueCodec.MalformedInput.self) { _ = try ValueCodec.decode(encoded) }
        }
        // As a dictionary key too.
        let key = Data([7, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 4, 1])
        #expect(throws: ValueCodec.MalformedInput.self) { _ = try ValueCodec.decode(key) }
    }
}
