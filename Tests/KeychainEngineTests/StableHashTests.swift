import Foundation
import KeychainFSModel
import Testing

/// Inode numbers and shortened file names are FNV-1a of bytes: they must not change between releases,
/// whatever holds the bytes (it reads contiguous storage directly instead of iterating).
@Suite struct StableHashTests {
    /// The published FNV-1a 64 test vectors, through `Data`, `[UInt8]`, a `Data` slice and a sequence
    /// without contiguous storage.
    @Test func theHashIsFNV1a64WhateverHoldsTheBytes() {
        let vectors: [(String, UInt64)] = [
            ("", 0xcbf2_9ce4_8422_2325), ("a", 0xaf63_dc4c_8601_ec8c), ("foobar", 0x8594_4171_f739_67e8),
        ]
        for (text, expected) in vectors {
            let bytes = Array(text.utf8)
            #expect(StableHash.fnv1a64(Data(bytes)) == expected, "Data \(text)")
            #expect(StableHash.fnv1a64(bytes) == expected, "[UInt8] \(text)")
            #expect(StableHash.fnv1a64(Data([0] + bytes).dropFirst()) == expected, "a slice \(text)")
            #expect(StableHash.fnv1a64(bytes.lazy.map { $0 }) == expected, "a lazy sequence \(text)")
        }
    }
}
