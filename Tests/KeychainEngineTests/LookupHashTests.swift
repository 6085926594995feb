import Foundation
@testable import KeychainEngine
import KeychainModel
import KeychainStore
import SodiumCrypto
import Testing

/// Issue 27: the lookup columns are hashed in one libsodium call, without the incremental state. The
/// bytes hashed must stay exactly those of ``KeyDerivation/keyedHash(_:key:outputBytes:)``, or every
/// vault's items would no longer be found by name.
@Suite struct LookupHashTests {
    @Test func theOneCallHashIsTheIncrementalHash() {
        let hasher = LookupHasher(indexKey: GuardedKey.random())
        let values: [KeychainValue] = [
            "", "a", "account0", .string(String(repeating: "ü", count: 300)), .data(Data()),
            .data(Data((0..<255).map(UInt8.init))),
            .number(0), .number(-42), .bool(true), .date(Date(timeIntervalSinceReferenceDate: 12345.5)),
            .array(["x", .number(1)]),
        ]
        for code in ["acct", "svce", "", "gena"] {
            for value in values {
                let incremental = KeyDerivation.keyedHash(
                    [Data(code.utf8), LookupHasher.matchBytes(value)], key: hasher.indexKey)
                #expect(hasher.hash(code, value) == incremental, "\(code) \(value)")
            }
        }
    }
}
