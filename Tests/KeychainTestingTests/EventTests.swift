import Foundation
import KeychainTesting
import Security
import Testing

/// `device.events`: what the keychain did, recorded where the engine reports it.
@Suite struct EventTests {
    /// Seed 004's pitfall: an app that deletes its token when a read fails with errSecInteractionNotAllowed.
    static func loadOrReset(deleteOnFailure: Bool) {
        if TokenCode.read().0 != errSecSuccess, deleteOnFailure {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TokenCode.service,
            ]
            _ = SecItemDelete(query as CFDictionary)
        }
    }

    static func deletes(_ device: SimulatedDevice) -> [SimulatedDevice.Call] {
        device.events.compactMap(\.call).filter { $0.operation == .delete }
    }

    @Test func theAppNeverDeletedItsTokenAfterALockedRead() throws {
        let app = App(bundleID: "com.example.app")
        for careless in [false, true] {
            let device = try SimulatedDevice(passcode: "1234")
            device.run(as: app) {
                #expect(TokenCode.save("t") == errSecSuccess)
                device.lock()
                Self.loadOrReset(deleteOnFailure: careless)
            }
            let calls = device.events.compactMap(\.call)
            #expect(
                calls.first
                    == SimulatedDevice.Call(
                        operation: .add, itemClass: "genp", status: errSecSuccess, app: "com.example.app"))
            #expect(
                calls.contains(
                    SimulatedDevice.Call(
                        operation: .copyMatching, itemClass: "genp", status: errSecInteractionNotAllowed,
                        app: "com.example.app")))
            #expect(Self.deletes(device).isEmpty == !careless, "the careless app's delete is seen")
        }
    }

    /// One call, one event: an update that replaces a secret is recorded as the update alone (it used to
    /// look its items up through a copyMatching of its own, recorded as a call the app never made).
    @Test func anUpdateIsRecordedAsOneCall() throws {
        let device = try SimulatedDevice()
        device.run {
            #expect(TokenCode.save("t") == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TokenCode.service,
            ]
            let change: [String: Any] = [kSecValueData as String: Data("t2".utf8)]
            #expect(SecItemUpdate(query as CFDictionary, change as CFDictionary) == errSecSuccess)
        }
        #expect(device.events.compactMap(\.call).map(\.operation) == [.add, .update])
    }

    @Test func promptsAndLockTransitionsAreRecorded() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.clearEvents()
        device.run {
            #expect(TokenCode.save("face", access: TokenCode.faceIDAccess()) == errSecSuccess)
            device.prompts.answerNext(.match)
            #expect(TokenCode.read() == (errSecSuccess, "face"))
            #expect(TokenCode.read().0 == errSecUserCanceled)
        }
        device.lock()
        try device.unlock(passcode: "1234")
        device.reboot()
        let events = device.events
        #expect(
            events.contains(
                .promptRaised(.biometry, reason: "Sign in to me", item: "genp/kit.token/me", app: "default")))
        #expect(
            events.filter { if case .promptAnswered = $0 { true } else { false } } == [
                .promptAnswered(.biometry, .match), .promptAnswered(.biometry, .cancel),
            ])
        #expect(
            events.filter { if case .deviceState = $0 { true } else { false } } == [
                .deviceState(.locked), .deviceState(.unlocked), .deviceState(.beforeFirstUnlock),
            ])
        #expect(!events.description.contains("face"), "never a secret")
    }
}
