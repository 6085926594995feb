import CryptoKit
import Foundation
import KeychainFSTestSupport
import Security
import Testing

/// CryptoKit's Secure Enclave through a mounted vault's daemon (the route of a process with no test device:
/// `KEYCHAIN_VAULT`), from a child process: the key is made and used in the daemon, its lock refuses it.
@Suite struct SecureEnclaveDaemonTests {
    static let noteVariable = "CRYPTOKIT_DAEMON_NOTE"

    @Test func aKeyIsMadeAndUsedInTheDaemonAndItsLockRefusesIt() throws {
        let m = try MountedVault()
        defer { m.close() }
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        let note = TestDirectory.root + "/cryptokit-daemon-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: note) }
        func child(_ step: String) throws -> String {
            let run = try ChildTest.run(
                "SecureEnclaveDaemonTests/daemonStep",
                environment: [Self.noteVariable: note, "KEYCHAIN_VAULT": m.vault, "CRYPTOKIT_STEP": step],
                timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
            return try String(contentsOfFile: note, encoding: .utf8)
        }
        #expect(try child("make") == "verified")
        #expect(try child("use") == "verified", "the stored representation is the daemon's key")
        try expectSuccess(m.device("lock"))
        #expect(try child("use") == "\(errSecInteractionNotAllowed)")
    }

    /// Run by ``aKeyIsMadeAndUsedInTheDaemonAndItsLockRefusesIt()``: `make` stores a key's representation as a
    /// generic password of the daemon's vault, `use` signs with it; the outcome goes to the note.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[SecureEnclaveDaemonTests.noteVariable] != nil))
    func daemonStep() throws {
        let environment = ProcessInfo.processInfo.environment
        let sample = DeviceSigningKey(service: "com.example.daemon-signing")
        let outcome: String
        do {
            if environment["CRYPTOKIT_STEP"] == "make" {
                let key = try SecureEnclave.P256.Signing.PrivateKey()
                let item: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: sample.service,
                    kSecAttrAccount as String: sample.account, kSecValueData as String: key.dataRepresentation,
                    kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
                ]
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            }
            let key = try #require(try sample.load())
            let message = Data("through the daemon".utf8)
            outcome = key.publicKey.isValidSignature(try key.signature(for: message), for: message) ? "verified" : "bad"
        } catch let error as NSError where error.domain == "NSOSStatusErrorDomain" {
            outcome = "\(error.code)"
        }
        try outcome.write(toFile: environment[Self.noteVariable]!, atomically: true, encoding: .utf8)
    }
}
