import Foundation
import KeychainTesting
import Security
import XCTest

/// XCTest's helper: every test method runs on a new device of its own.
final class XCTestHelperTests: SimulatedDeviceTestCase {
    func testRunsOnItsOwnDevice() throws {
        XCTAssertTrue(SimulatedDevice.current === device)
        XCTAssertEqual(TokenCode.count(), 0, "a fresh device")
        XCTAssertEqual(TokenCode.save("t"), errSecSuccess)
        device.lock()
        XCTAssertEqual(TokenCode.read().0, errSecInteractionNotAllowed)
        try device.unlock(passcode: "1234")
        XCTAssertEqual(TokenCode.read().0, errSecSuccess)
    }

    func testAsyncMethodsToo() async throws {
        XCTAssertTrue(SimulatedDevice.current === device)
        XCTAssertEqual(TokenCode.count(), 0, "not the other method's device")
        XCTAssertEqual(TokenCode.save("t"), errSecSuccess)
        async let child = TokenCode.read()
        let (status, _) = await child
        XCTAssertEqual(status, errSecSuccess)
    }
}

/// A face-enrolled device for each test, by overriding `makeDevice()`.
final class XCTestHelperOverrideTests: SimulatedDeviceTestCase {
    override func makeDevice() throws -> SimulatedDevice {
        try SimulatedDevice(passcode: "9999", biometryEnrolled: true)
    }

    func testTheOverridesDevice() {
        XCTAssertTrue(device.biometry.isEnrolled)
        XCTAssertEqual(TokenCode.save("face", access: TokenCode.faceIDAccess()), errSecSuccess)
        device.prompts.answerNext(.match)
        XCTAssertEqual(TokenCode.read().1, "face")
    }
}
