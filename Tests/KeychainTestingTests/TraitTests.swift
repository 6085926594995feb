import Foundation
import KeychainTesting
import Security
import Testing

/// `@Test(.simulatedDevice(…))`: each test (each argument) runs on a device of its own.
@Suite struct TraitTests {
    @Test(.simulatedDevice(passcode: "1234")) func theTestRunsOnItsDevice() throws {
        let device = try #require(SimulatedDevice.current)
        #expect(device.status.passcodeSet && !device.isLocked)
        #expect(TokenCode.save("t") == errSecSuccess)
        device.lock()
        #expect(TokenCode.read().0 == errSecInteractionNotAllowed)
    }

    @Test(.simulatedDevice(passcode: "1234"), arguments: 0..<8) func eachArgumentHasItsOwnDevice(_ n: Int) async throws
    {
        #expect(TokenCode.count() == 0, "no other test's items")
        #expect(TokenCode.save("t\(n)") == errSecSuccess)
        await Task.yield()
        #expect(TokenCode.read() == (errSecSuccess, "t\(n)"))
        if n.isMultiple(of: 2) { SimulatedDevice.current?.lock() }
        #expect(TokenCode.read().0 == (n.isMultiple(of: 2) ? errSecInteractionNotAllowed : errSecSuccess))
    }

    @Test(.simulatedDevice(app: AppTests.mail)) func theTraitNamesTheApp() {
        #expect(SimulatedDevice.currentApp == AppTests.mail)
        #expect(AppTests.save("t") == errSecSuccess)
        #expect(AppTests.group() == "TEAM.com.example.mail")
    }

    @Test func outsideATraitThereIsNoDevice() {
        #expect(SimulatedDevice.current == nil)
    }
}
