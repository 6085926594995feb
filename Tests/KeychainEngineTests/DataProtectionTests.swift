import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing

/// Accessibility classes against the device-lock simulator (docs/spec.md §3).
@Suite struct DataProtectionTests {
    let v: TestVault
    let passcode = Data("1234".utf8)
    init() throws { v = try TestVault() }

    func addEachClass() throws {
        for a in ["ak", "ck", "dk", "aku", "cku", "dku"] {
            _ = try v.add(genp("svc", a, ["pdmn": .string(a), "v_Data": data("secret-\(a)")]))
        }
    }

    func readable(_ account: String) -> OSStatus {
        switch v.secret("svc", account) {
        case .success(let d): return d == Data("secret-\(account)".utf8) ? 0 : SecStatus.decode
        case .failure(let e): return e.status
        }
    }

    @Test func noPasscodeMeansAlwaysAvailable() throws {
        try addEachClass()
        v.keychain.lockDevice()
        #expect(v.keychain.deviceStatus().state == .noPasscode)
        for a in ["ak", "ck", "dk"] { #expect(readable(a) == 0) }
        #expect(v.status { _ = try v.add(genp("svc", "p", ["pdmn": "akpu"])) } == SecStatus.authFailed)
    }

    @Test func lockRebootUnlockCycle() throws {
        try addEachClass()
        try v.keychain.setPasscode(passcode)
        #expect(v.keychain.deviceStatus().state == .unlocked)
        v.keychain.lockDevice()
        let locked = SecStatus.interactionNotAllowed
        #expect(readable("ak") == locked && readable("aku") == locked)
        #expect(readable("ck") == 0 && readable("cku") == 0 && readable("dk") == 0 && readable("dku") == 0)
        #expect(v.status { _ = try v.copy(genp("svc", "ak")) } == locked, "existence queries too")
        #expect(
            v.status { _ = try v.copy(["class": "genp", "svce": "svc", "m_Limit": "m_LimitAll"]) } == locked,
            "a scan that reaches an ak item fails")
        #expect(v.status { try v.update(genp("svc", "ak"), ["labl": "x"]) } == locked)
        #expect(v.status { _ = try v.add(genp("svc", "new-ak")) } == locked)
        #expect(v.status { _ = try v.add(genp("svc", "new-ck", ["pdmn": "ck"])) } == 0)

        v.keychain.rebootDevice()
        #expect(v.keychain.deviceStatus().state == .beforeFirstUnlock)
        #expect(readable("ck") == locked && readable("ak") == locked && readable("dk") == 0)

        #expect(v.status { try v.keychain.unlockDevice(passcode: Data("0000".utf8)) } == SecStatus.authFailed)
        #expect(v.keychain.deviceStatus().failedAttempts == 1)
        try v.keychain.unlockDevice(passcode: passcode)
        #expect(v.keychain.deviceStatus().failedAttempts == 0)
        for a in ["ak", "ck", "dk", "aku", "cku", "dku"] { #expect(readable(a) == 0) }
    }

    @Test func deletingClassAItemsWhileLockedSucceeds() throws {
        try addEachClass()
        try v.keychain.setPasscode(passcode)
        v.keychain.lockDevice()
        try v.delete(genp("svc", "ak"))
        try v.keychain.unlockDevice(passcode: passcode)
        #expect(readable("ak") == SecStatus.itemNotFound)
    }

    @Test func removingThePasscodeDeletesAkpuItems() throws {
        try v.keychain.setPasscode(passcode)
        _ = try v.add(genp("svc", "p", ["pdmn": "akpu", "v_Data": data("x")]))
        _ = try v.add(genp("svc", "k", ["v_Data": data("y")]))
        v.keychain.lockDevice()
        #expect(v.status { _ = try v.keychain.removePasscode(current: Data("bad".utf8)) } == SecStatus.authFailed)
        #expect(try v.keychain.removePasscode(current: passcode) == 1)
        #expect(v.keychain.deviceStatus().state == .noPasscode)
        #expect(v.status { _ = try v.copy(genp("svc", "p")) } == SecStatus.itemNotFound)
        #expect(try v.copy(genp("svc", "k", ["r_Data": true])) == data("y"))
    }

    @Test func changingThePasscodeKeepsItems() throws {
        try v.keychain.setPasscode(passcode)
        _ = try v.add(genp("svc", "k", ["v_Data": data("y")]))
        try v.keychain.changePasscode(old: passcode, new: Data("5678".utf8))
        v.keychain.rebootDevice()
        #expect(v.status { try v.keychain.unlockDevice(passcode: passcode) } == SecStatus.authFailed)
        try v.keychain.unlockDevice(passcode: Data("5678".utf8))
        #expect(try v.copy(genp("svc", "k", ["r_Data": true])) == data("y"))
    }

    @Test func stateSurvivesReopeningTheVault() throws {
        try v.keychain.setPasscode(passcode)
        _ = try v.add(genp("svc", "k", ["v_Data": data("y"), "pdmn": "ck"]))
        let reopened = try Keychain(vault: Vault(directory: v.directory))
        #expect(reopened.deviceStatus().state == .beforeFirstUnlock, "a restart is a reboot")
        #expect(throws: KeychainError.self) {
            try reopened.copyMatching(genp("svc", "k", ["r_Data": true]), caller: v.caller)
        }
        try reopened.unlockDevice(passcode: passcode)
        #expect(try reopened.copyMatching(genp("svc", "k", ["r_Data": true]), caller: v.caller) == data("y"))
    }

    @Test func autoLockLocksAfterTheDelay() async throws {
        try v.keychain.setPasscode(passcode)
        try v.keychain.setAutoLock(seconds: 1)
        #expect(v.keychain.deviceStatus().state == .unlocked)
        let deadline = Date().addingTimeInterval(5)
        while v.keychain.deviceStatus().state != .locked && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(v.keychain.deviceStatus().state == .locked)
    }

    @Test func wrongPasscodesEscalateOnARealDevice() throws {
        let real = try TestVault(testDevice: false)
        try real.keychain.setPasscode(passcode)
        real.keychain.lockDevice()
        for _ in 0..<5 { _ = real.status { try real.keychain.unlockDevice(passcode: Data("0000".utf8)) } }
        let status = real.keychain.deviceStatus()
        #expect(status.failedAttempts == 5)
        #expect(status.lockedOutUntil.map { $0.timeIntervalSinceNow > 50 } == true)
        do { try real.keychain.unlockDevice(passcode: passcode); Issue.record("unlock during lockout") } catch {
            #expect(error.status == SecStatus.authFailed && error.message.contains("try again"))
        }
        #expect(real.keychain.deviceStatus().state == .locked)
    }
}

extension DataProtectionTests {
    @Test func aWrongPasscodeNeverDeletesAkpuItems() throws {
        try v.keychain.setPasscode(passcode)
        _ = try v.add(genp("svc", "p", ["pdmn": "akpu", "v_Data": data("x")]))
        #expect(v.status { _ = try v.keychain.removePasscode(current: Data("bad".utf8)) } == SecStatus.authFailed)
        #expect(try v.copy(genp("svc", "p", ["r_Data": true])) == data("x"))
        #expect(v.keychain.deviceStatus().passcodeSet)
    }
}
