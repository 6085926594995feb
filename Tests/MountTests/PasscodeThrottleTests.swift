import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// docs/device.md: passcode attempts are evaluated one at a time, so the lockout holds against
/// parallel bursts; passcode changes do not interleave; malformed device arguments are refused.
@Suite struct PasscodeThrottleTests {
    enum Outcome: Sendable, Equatable { case wrong, lockedOut, unlocked, other(String) }

    static func outcome(_ text: String, succeeded: Bool) -> Outcome {
        if succeeded { return .unlocked }
        if text.contains("too many wrong passcodes") { return .lockedOut }
        if text.contains("the passcode is not correct") { return .wrong }
        return .other(text)
    }

    /// Half the attempts as `keychainfs device unlock` processes, half as raw socket requests, all at once.
    static func burst(_ m: MountedVault, _ passcodes: [String]) -> [Outcome?] {
        let socketPath = ControlSocket.path(for: Vault(directory: m.vault))
        let binary = MountedVault.binary, mount = m.mount
        let tasks: [@Sendable () -> Outcome] = passcodes.enumerated().map { i, passcode in
            if i % 2 == 0 {
                return {
                    let r = Command.run(
                        binary, ["device", "unlock", "--mount", mount, "--passcode-stdin"], stdin: passcode + "\n",
                        timeout: 120)
                    return outcome(r.stderr, succeeded: r.succeeded)
                }
            }
            return {
                guard let c = RawControl(path: socketPath) else { return .other("cannot connect") }
                defer { c.close() }
                c.request("device.unlock", ["passcode": .data(Data(passcode.utf8))])
                guard let reply = c.reply() else { return .other("no reply") }
                return outcome(reply.message, succeeded: reply.status == 0)
            }
        }
        return RawControl.together(tasks)
    }

    static func peakResidentMiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    static func failedAttempts(_ m: MountedVault) -> Int64? {
        (try? m.control.send(ControlRequest(.deviceStatus)).check())??.dictionaryValue?["failedAttempts"]?.numberValue
    }

    @Test(.timeLimit(.minutes(3))) func parallelWrongPasscodesCannotOutrunTheLockout() throws {
        let m = try MountedVault(initArguments: [])  // a real device: lockouts apply
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))

        let first = Self.burst(m, (0..<12).map { "wrong-\($0)" })
        #expect(first.filter { $0 == .wrong }.count == 5, "exactly five were evaluated: \(first)")
        #expect(first.filter { $0 == .lockedOut }.count == 7, "the rest were refused unevaluated: \(first)")
        #expect(Self.failedAttempts(m) == 5)
        // One Argon2id (256 MiB) at a time: the burst does not multiply the daemon's memory.
        let peak = try Self.peakResidentMiB(#require(m.daemonPID))
        #expect(peak < 700, "peak resident memory \(peak) MiB")

        // After the limit, a burst that hides the right passcode among wrong ones unlocks nothing.
        let second = Self.burst(m, (0..<11).map { "wrong-again-\($0)" } + ["1234"])
        #expect(second.allSatisfy { $0 == .lockedOut }, "\(second)")
        #expect(m.device("status").stdout.contains("state: locked"))
        #expect(Self.failedAttempts(m) == 5)
    }

    @Test func passcodeRemoveRacingChangeNeverAnswersAnInternalError() throws {
        let m = try MountedVault()
        let control = m.control
        for round in 0..<8 {
            try expectSuccess(m.device("passcode", "set", passcode: "1111"))
            let statuses = RawControl.together(
                [
                    {
                        (try? control.send(
                            ControlRequest(
                                .passcodeChange, ["old": .data(Data("1111".utf8)), "new": .data(Data("2222".utf8))])))?
                            .status ?? 1
                    },
                    {
                        (try? control.send(ControlRequest(.passcodeRemove, ["passcode": .data(Data("1111".utf8))])))?
                            .status ?? 1
                    },
                ] as [@Sendable () -> Int32])
            let allowed: Set<Int32> = [SecStatus.success, SecStatus.param, SecStatus.authFailed]
            #expect(statuses.allSatisfy { $0.map(allowed.contains) == true }, "round \(round): \(statuses)")
            #expect(
                statuses.filter { $0 == SecStatus.success }.count == 1, "exactly one wins, round \(round): \(statuses)")
            let passcodeSet =
                (try? control.send(ControlRequest(.deviceStatus)).check())??.dictionaryValue?["passcodeSet"] == true
            #expect(
                passcodeSet == (statuses.first == SecStatus.success), "the change won exactly when a passcode remains")
            if passcodeSet { try expectSuccess(m.device("passcode", "remove", passcode: "2222")) }
            #expect(m.device("status").stdout.contains("state: no-passcode"), "round \(round)")
        }
    }

    @Test func aMalformedAutoLockArgumentIsRefusedNotTakenAsOff() throws {
        let m = try MountedVault()
        try expectSuccess(m.device("auto-lock", "30"))
        let socketPath = ControlSocket.path(for: Vault(directory: m.vault))
        let malformed: [KeychainDictionary] = [
            ["seconds": "5"], ["seconds": .date(Date())], ["seconds": true], ["secnds": 5], ["seconds": 5, "extra": 1],
            ["seconds": .array([5])],
        ]
        for arguments in malformed {
            let c = try #require(RawControl(path: socketPath))
            defer { c.close() }
            c.request("device.auto-lock", arguments)
            #expect(c.reply()?.status == SecStatus.param, "\(arguments)")
        }
        let status = try #require(try m.control.send(ControlRequest(.deviceStatus)).check()?.dictionaryValue)
        #expect(status["autoLockSeconds"] == 30, "auto-lock unchanged")
        let off = try #require(RawControl(path: socketPath))
        defer { off.close() }
        off.request("device.auto-lock")
        #expect(off.reply()?.status == SecStatus.success, "no argument: off")
    }
}
