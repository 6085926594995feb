import Foundation
import Security
import Testing
import KeychainFSTestSupport

/// Seed 002 end to end in this file's language mode (Swift 6 and Swift 5 targets share the file),
/// against the process's in-process vault.
@Suite struct SeedKeyTests {
    @Test(arguments: [("RSA", 2048), ("EC", 256), ("EC", 384), ("EC", 521)])
    func generateFindSignVerifyDelete(kind: String, bits: Int) throws {
        _ = InProcessVault.path
        let pair = TaggedKeyPair(
            tag: Data("com.example.keys.\(kind).\(bits).\(UUID().uuidString)".utf8),
            keyType: kind == "RSA" ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let generated = try pair.generate()
        let found = try pair.find()
        #expect(found == generated, "the key found by tag is the key generated")
        #expect(SecKeyGetBlockSize(found) == (kind == "RSA" ? bits / 8 : [256: 32, 384: 48, 521: 66][bits]!))
        let message = Data(
            "seed 002 (docs/sources.md): use the returned key reference to carry out cryptographic operations".utf8)
        let signature = try pair.sign(message)
        #expect(try pair.verify(message, signature))
        var tampered = signature
        tampered[tampered.count / 2] ^= 0x01
        #expect(try pair.verify(message, tampered) == false)
        #expect(pair.delete() == errSecSuccess)
        #expect(throws: TaggedKeyPair.Failure.self) { try pair.find() }
    }
}
