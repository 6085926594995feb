import Foundation
@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import KeychainFSSodium
import Testing

/// The lookup columns are hashed in one libsodium call, without the incremental state. The
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

    /// The schema's constants (defaults, accessibility classes) are hashed once per hasher and
    /// remembered; the remembered column must be the very hash, for every spelling of the same bytes.
    @Test func theSchemasConstantsAreHashedOnceAndTheSame() {
        let hasher = LookupHasher(indexKey: GuardedKey.random())
        var constants: [(String, KeychainValue)] = Accessibility.allCases.map { ("pdmn", .string($0.rawValue)) }
        for schema in Schema.storedClasses {
            for attribute in schema.attributes {
                if let value = attribute.defaultValue { constants.append((attribute.code, value)) }
            }
        }
        constants += [("sync", .bool(false)), ("sync", .number(1)), ("sync", .data(Data("0".utf8)))]
        for round in 1...2 {
            for (code, value) in constants {
                let incremental = KeyDerivation.keyedHash(
                    [Data(code.utf8), LookupHasher.matchBytes(value)], key: hasher.indexKey)
                #expect(hasher.hash(code, value) == incremental, "round \(round): \(code) \(value)")
            }
        }
    }

    /// An update hashes only the attributes whose matched bytes changed and keeps the other
    /// columns. Kept by Swift's `==` on strings, a decomposed "café" replacing the composed one would keep
    /// the composed hash: the item would then be found under the name it no longer has.
    @Test func anUpdateRehashesExactlyTheAttributesWhoseBytesChanged() {
        let hasher = LookupHasher(indexKey: GuardedKey.random())
        let schema = Schema.genericPassword
        let old: [String: KeychainValue] = [
            "svce": "caf\u{E9}", "acct": "a", "labl": "L", "mdat": .date(Date(timeIntervalSinceReferenceDate: 1)),
        ]
        let oldColumns = hasher.columns(for: old, schema: schema)
        for change: [String: KeychainValue] in [
            ["svce": "cafe\u{301}"], ["labl": .data(Data("L".utf8))],
            ["mdat": .date(Date(timeIntervalSinceReferenceDate: 2))],
            ["acct": "b", "gena": .data(Data([1]))], [:],
        ] {
            let new = old.merging(change) { $1 }
            #expect(
                hasher.columns(for: new, schema: schema, updating: old, columns: oldColumns)
                    == hasher.columns(for: new, schema: schema), "\(change)")
        }
    }

    /// The same through the engine: an item whose service is rewritten from composed to decomposed is found
    /// by the new bytes only, and a write of its value keeps it found by name.
    @Test func anUpdatedItemIsFoundByItsNewBytesOnly() throws {
        let v = try TestVault()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        _ = try v.add(genp(composed, "a", ["v_Data": data("one"), "labl": "L"]))
        try v.update(genp(composed, "a"), ["svce": .string(decomposed)])
        #expect(v.status { _ = try v.copy(genp(composed, "a")) } == SecStatus.itemNotFound)
        try v.update(genp(decomposed, "a"), ["v_Data": data("two")])
        #expect(try v.copy(genp(decomposed, "a", ["r_Data": true])) == data("two"))
        #expect(try v.copy(["class": "genp", "labl": "L", "r_Data": true]) == data("two"))
    }
}
