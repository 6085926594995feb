import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import KeychainTesting
import Testing
import KeychainFSTestSupport

/// The table of device commands (lock, unlock, reboot, passcode, biometry, prompts, auto-lock, lockout),
/// run step by step against the test kit's simulated device and against a mounted daemon's device: every
/// step has the same outcome (status and device state) on both, since both drive the engine's one state machine.
@Suite struct DeviceCommandTableTests {
    enum Step {
        case setPasscode(String), unlock(String), lock, reboot, changePasscode(String, String), removePasscode(String)
        case enroll, unenroll, answerNext(String), auto(String), autoLock(Int?), elapse(TimeInterval)
        case add(String, accessControl: Int64?), read(String)
    }

    /// A step's outcome: its status (0 for success) and the device state after it.
    struct Outcome: Equatable { var status: OSStatus; var state: String }

    static let table: [Step] = [
        .setPasscode("1234"), .enroll,
        .add("plain", accessControl: nil), .add("face", accessControl: AccessConstraint.Bit.biometryAny),
        .add("passcode", accessControl: AccessConstraint.Bit.devicePasscode),
        .read("plain"), .lock, .read("plain"), .unlock("0000"), .unlock("1234"), .read("plain"),
        .reboot, .read("plain"), .unlock("1234"),
        .read("face"), .answerNext("match"), .read("face"), .answerNext("no-match"), .read("face"),
        .auto("match"), .read("passcode"), .auto("accept"), .read("passcode"), .read("face"), .auto("cancel"),
        .answerNext("passcode"), .read("passcode"), .answerNext("accept"), .read("passcode"), .answerNext("accept"),
        .read("face"),
        .changePasscode("1234", "5678"), .lock, .unlock("1234"), .unlock("5678"),
        .unenroll, .answerNext("match"), .read("face"), .enroll,
        .autoLock(1), .elapse(1.5), .read("plain"), .unlock("5678"), .autoLock(nil),
        .removePasscode("5678"), .read("passcode"), .lock, .read("plain"),
        .setPasscode("1111"), .lock, .unlock("0000"), .unlock("0000"), .unlock("0000"), .unlock("0000"),
        .unlock("0000"),
        .unlock("1111"),
    ]

    @Test func kitAndDaemonGiveTheSameOutcomes() throws {
        let kit = try KitDevice()
        let daemon = try DaemonDevice()
        defer { daemon.m.close() }
        var answers: [String: String] = [:]  // the passcode each answer "passcode" types
        for (n, step) in Self.table.enumerated() {
            if case .setPasscode(let p) = step { answers["passcode"] = p }
            if case .changePasscode(_, let p) = step { answers["passcode"] = p }
            let expected = kit.perform(step, passcode: answers["passcode"] ?? "")
            let got = daemon.perform(step, passcode: answers["passcode"] ?? "")
            #expect(got == expected, "step \(n): \(step)")
        }
        // The table means something: its steps fail and succeed, lock and unlock.
        #expect(kit.outcomes.contains { $0.status == SecStatus.interactionNotAllowed })
        #expect(kit.outcomes.contains { $0.status == SecStatus.authFailed && $0.state == "locked" }, "the lockout")
        #expect(kit.outcomes.last?.status == SecStatus.authFailed, "the right passcode during the lockout is refused")
    }
}

/// Items as both drivers add and read them: through the connection the Security module uses.
enum TableItems {
    static func add(_ account: String, _ accessControl: Int64?) -> KeychainDictionary {
        var item: KeychainDictionary = [
            "class": "genp", "svce": "table", "acct": .string(account), "v_Data": .data(Data(account.utf8)),
            "pdmn": "ak",
        ]
        if let accessControl { item["accc"] = .number(accessControl); item["pdmn"] = "aku" }
        return item
    }

    static func read(_ account: String) -> KeychainDictionary {
        ["class": "genp", "svce": "table", "acct": .string(account), "r_Data": true, "u_OpPrompt": "table"]
    }

    static func status(_ body: () throws(KeychainError) -> Void) -> OSStatus {
        do { try body(); return SecStatus.success } catch { return error.status }
    }
}

/// The kit's device, driven by its controls.
final class KitDevice {
    let device: SimulatedDevice
    var outcomes: [DeviceCommandTableTests.Outcome] = []

    init() throws { device = try SimulatedDevice() }

    /// Runs `body` bound to the device, through the connection the Security module would use there.
    func onDevice(_ body: () throws(KeychainError) -> Void) throws(KeychainError) {
        let status = device.run { TableItems.status(body) }
        if status != SecStatus.success { throw KeychainError(status, "") }
    }

    func perform(_ step: DeviceCommandTableTests.Step, passcode: String) -> DeviceCommandTableTests.Outcome {
        let status = TableItems.status { () throws(KeychainError) in
            switch step {
            case .setPasscode(let p): try device.setPasscode(p)
            case .unlock(let p): try device.unlock(passcode: p)
            case .lock: device.lock()
            case .reboot: device.reboot()
            case .changePasscode(let old, let new): try device.changePasscode(from: old, to: new)
            case .removePasscode(let p): try device.removePasscode(p)
            case .enroll: try device.biometry.enroll()
            case .unenroll: device.biometry.unenroll()
            case .answerNext(let answer):
                let typed: SimulatedDevice.Prompts.Answer =
                    switch answer {
                    case "match": .match
                    case "no-match": .noMatch
                    case "passcode": .passcode(passcode)
                    case "accept": .accept
                    default: .cancel
                    }
                device.prompts.answerNext(typed)
            case .auto(let mode):
                device.prompts.automatic = [.match, .noMatch, .cancel, .accept].first { "\($0)" == mode } ?? .cancel
            case .autoLock(let seconds): try device.setAutoLock(seconds.map { .seconds($0) })
            case .elapse(let seconds): device.clock.advance(by: .milliseconds(Int(seconds * 1000)))
            case .add(let account, let accessControl):
                try onDevice { () throws(KeychainError) in
                    _ = try KeychainBinding.current!.connection.add(TableItems.add(account, accessControl))
                }
            case .read(let account):
                try onDevice { () throws(KeychainError) in
                    _ = try KeychainBinding.current!.connection.copyMatching(TableItems.read(account))
                }
            }
        }
        let outcome = DeviceCommandTableTests.Outcome(status: status, state: device.status.state.rawValue)
        outcomes.append(outcome)
        return outcome
    }
}

/// A mounted daemon's device (not a test device: its lockout delays apply, as the kit's do), driven by the
/// control commands `keychainfs device …` sends.
final class DaemonDevice {
    let m: MountedVault
    let connection: KeychainConnection

    init() throws {
        m = try MountedVault(initArguments: [])
        connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
    }

    func send(_ command: ControlCommand, _ arguments: KeychainDictionary = [:]) throws(KeychainError) {
        _ = try m.control.send(ControlRequest(command, arguments)).check()
    }

    func perform(_ step: DeviceCommandTableTests.Step, passcode: String) -> DeviceCommandTableTests.Outcome {
        let status = TableItems.status { () throws(KeychainError) in
            switch step {
            case .setPasscode(let p): try send(.passcodeSet, ["passcode": .data(Data(p.utf8))])
            case .unlock(let p): try send(.deviceUnlock, ["passcode": .data(Data(p.utf8))])
            case .lock: try send(.deviceLock)
            case .reboot: try send(.deviceReboot)
            case .changePasscode(let old, let new):
                try send(.passcodeChange, ["old": .data(Data(old.utf8)), "new": .data(Data(new.utf8))])
            case .removePasscode(let p): try send(.passcodeRemove, ["passcode": .data(Data(p.utf8))])
            case .enroll: try send(.biometryEnroll)
            case .unenroll: try send(.biometryUnenroll)
            case .answerNext(let answer):
                var arguments: KeychainDictionary = ["answer": .string(answer), "next": true]
                if answer == "passcode" { arguments["passcode"] = .data(Data(passcode.utf8)) }
                try send(.promptAnswer, arguments)
            case .auto(let mode): try send(.promptAuto, ["mode": .string(mode)])
            case .autoLock(let seconds): try send(.autoLock, seconds.map { ["seconds": .number(Int64($0))] } ?? [:])
            case .elapse(let seconds): Thread.sleep(forTimeInterval: seconds)
            case .add(let account, let accessControl): _ = try connection.add(TableItems.add(account, accessControl))
            case .read(let account): _ = try connection.copyMatching(TableItems.read(account))
            }
        }
        let state =
            (try? m.control.send(ControlRequest(.deviceStatus)).check())??.dictionaryValue?["state"]?.stringValue ?? "?"
        return DeviceCommandTableTests.Outcome(status: status, state: state)
    }
}
