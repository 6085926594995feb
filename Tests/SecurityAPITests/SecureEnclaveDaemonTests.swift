import KeychainFSControlChannel
import Crypto
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// Seed 002 and Secure Enclave keys through a mounted vault's daemon, from iOS-style code in another
/// process (`seckey-probe`, built in Swift 6 and Swift 5 modes).
@Suite struct SecureEnclaveDaemonTests {
    static func probe(_ m: MountedVault, _ program: String, _ arguments: String...) -> String {
        Command.run(
            MountedVault.builtProgram(program), arguments, environment: ["KEYCHAIN_VAULT": m.vault], timeout: 60
        )
        .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: ["seckey-probe", "seckey-probe-swift5"])
    func seed002ThroughTheDaemon(program: String) throws {
        let m = try MountedVault()
        #expect(Self.probe(m, program, "seed002", "RSA") == "ok")
        #expect(Self.probe(m, program, "seed002", "EC") == "ok")
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: m.path("keys")))?.isEmpty == true,
            "stored in the daemon's vault, then deleted")
    }

    @Test func secureEnclaveKeyObeysTheLockAndNeverLeaves() throws {
        let m = try MountedVault()
        #expect(Self.probe(m, "seckey-probe", "se-generate", "se.tag") == "generated")
        #expect(Self.probe(m, "seckey-probe", "se-sign", "se.tag") == "verified")
        // API: no export.
        #expect(Self.probe(m, "seckey-probe", "se-export", "se.tag") == "refused \(SecStatus.unimplemented)")
        // Filesystem: the private value refuses reads.
        // Its token ID is part of its primary key, so the directory names it.
        let item = m.path("keys/se.tag/private;tkid=com.apple.setoken")
        #expect(
            FileManager.default.fileExists(atPath: item),
            "\((try? FileManager.default.contentsOfDirectory(atPath: m.path("keys/se.tag"))) ?? [])")
        let opened = open(item + "/value", O_RDONLY)
        let openErrno = errno
        if opened >= 0 { close(opened) }
        #expect(opened < 0 && openErrno == EPERM, "value of an SE key is EPERM")
        // Marking it extractable changes nothing: a token's key never leaves.
        #expect(Command.run("/usr/bin/setfattr", ["-n", "user.kSecAttrIsExtractable", "-v", "1", item]).succeeded)
        let reopened = open(item + "/value", O_RDONLY)
        let reopenErrno = errno
        if reopened >= 0 { close(reopened) }
        #expect(reopened < 0 && reopenErrno == EPERM, "still EPERM with kSecAttrIsExtractable = 1")
        #expect(Self.probe(m, "seckey-probe", "se-export", "se.tag") == "refused \(SecStatus.unimplemented)")
        // Control socket: what a client can get is the blob, which holds no usable private key.
        let found = try m.control.send(
            ControlRequest(
                .itemCopyMatching,
                [
                    "query": .dictionary([
                        "class": "keys", "atag": .data(Data("se.tag".utf8)), "r_Data": true,
                    ])
                ])
        ).check()
        let blob = try #require(found?.dataValue)
        let publicKey = blob.prefix(65)
        for offset in 0...(blob.count - 32) {
            if let candidate = try? P256.Signing.PrivateKey(
                rawRepresentation: blob[blob.startIndex + offset..<blob.startIndex + offset + 32])
            {
                #expect(
                    candidate.publicKey.x963Representation != publicKey,
                    "the blob must not carry the private scalar in the clear")
            }
        }
        // Malformed enclave requests are errSecParam, and the daemon keeps serving.
        for request: KeychainDictionary in [
            [:], ["operation": "sign"],
            ["operation": "sign", "blob": .data(Data([4, 1, 2])), "digest": .data(Data(count: 32))],
            ["operation": "exchange", "blob": .data(blob), "peer": .data(Data(count: 65))], ["operation": .number(7)],
        ] {
            let response = try m.control.send(ControlRequest(.keySecureEnclave, ["request": .dictionary(request)]))
            #expect(response.status == SecStatus.param, "\(request)")
        }
        let garbage = try m.control.send(ControlRequest(.keySecureEnclave, ["request": "not a dictionary"]))
        #expect(garbage.status == SecStatus.param)
        // The lock, issued by another process, reaches the enclave.
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        #expect(Self.probe(m, "seckey-probe", "se-sign", "se.tag") == "error \(SecStatus.interactionNotAllowed)")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(Self.probe(m, "seckey-probe-swift5", "se-sign", "se.tag") == "verified")
        #expect(Self.probe(m, "seckey-probe", "se-delete", "se.tag") == "deleted")
        #expect(Self.probe(m, "seckey-probe", "se-sign", "se.tag") == "error \(SecStatus.itemNotFound)")
    }
}
