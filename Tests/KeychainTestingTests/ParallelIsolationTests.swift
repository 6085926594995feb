import Foundation
import KeychainTesting
import Security
import Testing

/// 200 tests at once, each on its own device: three in four lock, reboot or answer Face ID prompts, and none
/// sees another's items, lock state or prompts. Every device stores the same service and account.
@Suite struct ParallelIsolationTests {
    @Test(arguments: 0..<200) func ownDevice(_ n: Int) async throws {
        let passcode = "pc-\(n)"
        let device = try SimulatedDevice(passcode: passcode, biometryEnrolled: n % 4 == 2)
        try await device.run {
            #expect(TokenCode.save("token-\(n)") == errSecSuccess)
            await Task.yield()
            switch n % 4 {
            case 0:
                device.lock()
                #expect(TokenCode.read().0 == errSecInteractionNotAllowed)
                await Task.yield()
                try device.unlock(passcode: passcode)
            case 1:
                device.reboot()
                #expect(TokenCode.read().0 == errSecInteractionNotAllowed)
                await Task.yield()
                try device.unlock(passcode: passcode)
            case 2:
                #expect(TokenCode.save("face-\(n)", account: "face", access: TokenCode.faceIDAccess()) == errSecSuccess)
                device.prompts.answerNext(.match)
                #expect(TokenCode.read(account: "face") == (errSecSuccess, "face-\(n)"))
                await Task.yield()
                #expect(TokenCode.read(account: "face").0 == errSecUserCanceled, "unanswered: the automatic cancel")
                #expect(device.prompts.raisedCount == 2)
            default:
                #expect(!device.isLocked)
                #expect(device.prompts.raisedCount == 0, "no other device's prompt reaches this one")
            }
            // A child task inherits the binding.
            async let fromChild = TokenCode.read()
            #expect(await fromChild == (errSecSuccess, "token-\(n)"))
            #expect(TokenCode.count() == (n % 4 == 2 ? 2 : 1), "only this device's items")
            #expect(SimulatedDevice.current === device)
        }
    }
}
