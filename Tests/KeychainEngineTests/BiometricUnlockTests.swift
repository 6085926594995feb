import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// `device unlock --biometry` opens a locked device after a passcode unlock, as Face ID does on iOS, and
/// is refused after a reboot, a lockout, an enrolment change and 48 h without the passcode (docs/spec.md §11).
@Suite struct BiometricUnlockTests {
    let v: TestVault
    var k: Keychain { v.keychain }
    let passcode = AuthenticationTableTests.passcode

    init() throws {
        v = try TestVault.withFaceID()
        _ = try v.add(genp("svc", "a", ["v_Data": data("when-unlocked"), "pdmn": "ak"]))
        _ = try v.add(genp("svc", "c", ["v_Data": data("after-first"), "pdmn": "ck"]))
        try k.unlockDevice(passcode: passcode)  // the passcode unlock Face ID builds on
    }

    private func refused(_ body: () throws -> Void, _ comment: Comment) {
        #expect(v.status(body) == SecStatus.authFailed, comment)
        #expect(k.deviceStatus().state != .unlocked, comment)
    }

    @Test func aMatchUnlocksALockedDeviceAfterAPasscodeUnlock() throws {
        k.lockDevice()
        #expect(
            v.status { _ = try v.secret("svc", "a").get() } == SecStatus.interactionNotAllowed, "the lock promise holds"
        )
        try k.unlockWithBiometry()
        #expect(k.deviceStatus().state == .unlocked)
        #expect(try v.secret("svc", "a").get() == Data("when-unlocked".utf8))
        #expect(k.biometryStatus().lastBiometricUnlock != nil)
        k.lockDevice()
        #expect(
            v.status { _ = try v.secret("svc", "a").get() } == SecStatus.interactionNotAllowed,
            "locked again after a biometric unlock")
        try k.unlockWithBiometry()
        #expect(
            try v.secret("svc", "a").get() == Data("when-unlocked".utf8), "the copy lasts until a reason to drop it")
    }

    @Test func theCopyIsNeverWritten() throws {
        let files = { try FileManager.default.subpathsOfDirectory(atPath: v.directory).sorted() }
        let keybags = {
            try files().filter { !$0.hasPrefix("items.sqlite") }.map {
                try Data(contentsOf: URL(fileURLWithPath: v.directory + "/" + $0))
            }
        }
        k.lockDevice()
        let before = (try files(), try keybags())
        try k.unlockDevice(passcode: passcode)
        #expect(try files() == before.0, "no new file")
        #expect(try keybags() == before.1, "the passcode unlock that makes the copy changes no file but the database")
    }

    @Test func aRebootNeedsThePasscode() throws {
        k.rebootDevice()
        refused({ try k.unlockWithBiometry() }, "before the first unlock")
        #expect(v.status { _ = try v.secret("svc", "c").get() } == SecStatus.interactionNotAllowed)
        try k.unlockDevice(passcode: passcode)
        k.lockDevice()
        try k.unlockWithBiometry()
        #expect(k.deviceStatus().state == .unlocked)
    }

    @Test func aLockoutNeedsThePasscode() throws {
        k.lockDevice()
        for n in 1...BiometryRecord.lockoutFailures {
            refused({ try k.unlockWithBiometry(match: false) }, "no-match \(n)")
        }
        #expect(k.biometryStatus().lockedOut)
        refused({ try k.unlockWithBiometry() }, "locked out")
        try k.unlockDevice(passcode: passcode)
        #expect(!k.biometryStatus().lockedOut, "the passcode releases the lockout")
        k.lockDevice()
        try k.unlockWithBiometry()
        #expect(k.deviceStatus().state == .unlocked)
    }

    @Test func aMatchResetsTheFailures() throws {
        k.lockDevice()
        for _ in 1..<BiometryRecord.lockoutFailures { refused({ try k.unlockWithBiometry(match: false) }, "no-match") }
        try k.unlockWithBiometry()
        #expect(k.biometryStatus().failures == 0)
    }

    @Test func reEnrolmentAndUnenrolmentNeedThePasscode() throws {
        try k.enrollBiometry()
        k.lockDevice()
        refused({ try k.unlockWithBiometry() }, "after re-enrolment")
        try k.unlockDevice(passcode: passcode)
        k.unenrollBiometry()
        try k.enrollBiometry()
        k.lockDevice()
        refused({ try k.unlockWithBiometry() }, "after unenrol and enrol")
        k.unenrollBiometry()
        refused({ try k.unlockWithBiometry() }, "not enrolled")
    }

    @Test func fortyEightHoursWithoutThePasscode() throws {
        k.lockDevice()
        let hour: TimeInterval = 3600
        try k.unlockWithBiometry(at: Date().addingTimeInterval(47 * hour))
        k.lockDevice()
        refused({ try k.unlockWithBiometry(at: Date().addingTimeInterval(48 * hour + 60)) }, "48 h after the passcode")
        refused({ try k.unlockWithBiometry() }, "the copy is gone once expired")
        try k.unlockDevice(passcode: passcode)
        k.lockDevice()
        try k.unlockWithBiometry(at: Date().addingTimeInterval(47 * hour))
        #expect(k.deviceStatus().state == .unlocked)
    }
}
