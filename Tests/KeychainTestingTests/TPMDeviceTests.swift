import Foundation
import KeychainTesting
import Security
import Testing

/// A kit device on a TPM (``SimulatedTPM``, docs/test-kit.md): its own swtpm, started and stopped with it.
/// These tests require swtpm (scripts/install-deps.sh installs it); an app's tests would rather skip with
/// `.enabled(if: SimulatedTPM.isAvailable)`.
@Suite struct TPMDeviceTests {
    init() throws { try #require(SimulatedTPM.isAvailable, "\(SimulatedTPM.unavailableReason ?? "")") }

    @Test func aDeviceOnItsSwtpmSealsItsKeyChecksItsPasscodeAndSignsInTheTPM() throws {
        let device = try SimulatedDevice(passcode: "1234", tpm: .swtpm)
        let config = try String(contentsOfFile: device.directory + "/vault/vault.json", encoding: .utf8)
        #expect(config.contains("deviceKeyTPM") && config.contains("tpm.sock") && config.contains("pinned"))
        #expect(!FileManager.default.fileExists(atPath: device.directory + "/device.key"))
        let keybag = try String(contentsOfFile: device.directory + "/vault/keybag", encoding: .utf8)
        #expect(keybag.contains("passcodeTPMShare"), "the passcode is checked by the TPM")
        device.run {
            var error: Unmanaged<CFError>?
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            ]
            guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error),
                let publicKey = SecKeyCopyPublicKey(key)
            else {
                Issue.record("no Secure Enclave key: \(String(describing: error?.takeRetainedValue()))")
                return
            }
            let message = Data("signed in the kit's TPM".utf8) as CFData
            let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error)
            #expect(signature != nil)
            if let signature {
                #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
            }
        }
        device.lock()
        #expect(throws: KeychainError.self) { try device.unlock(passcode: "9999") }
        try device.unlock(passcode: "1234")
    }

    @Test func theDevicesSwtpmEndsWithIt() throws {
        var device: SimulatedDevice? = try SimulatedDevice(tpm: .swtpm)
        let socket = device!.directory + "/swtpm/tpm.sock"
        #expect(FileManager.default.fileExists(atPath: socket))
        let pids = Self.swtpmProcesses(using: socket)
        #expect(pids.count == 1)
        device = nil
        #expect(Self.swtpmProcesses(using: socket).isEmpty, "stopped with its device")
    }

    /// The swtpm processes whose command line names `socket`.
    static func swtpmProcesses(using socket: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { pid in
            guard pid.allSatisfy(\.isNumber), let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { return false }
            return String(decoding: line, as: UTF8.self).contains(socket)
        }
    }
}
