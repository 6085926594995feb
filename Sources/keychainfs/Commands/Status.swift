import KeychainFSControlChannel
import ArgumentParser
import Foundation
import KeychainFSEngine
import KeychainFSModel

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show a running daemon's vault, mount, device state and item counts.")

    @OptionGroup var address: DaemonAddress

    func run() throws {
        let status = try address.call(StatusCall())
        print("vault: \(status.vault)")
        // Empty for `keychainfs secret-service`, which serves no mount.
        print("mount: \(status.mountpoint.isEmpty ? "none (the Secret Service only)" : status.mountpoint)")
        print("pid: \(status.pid)")
        if !status.deviceKey.isEmpty { print("device key: \(status.deviceKey)") }
        DeviceStatusPrinter.print(status)
        if let items = status.items {
            print("items: " + items.keys.sorted().map { "\($0) \(items[$0] ?? 0)" }.joined(separator: ", "))
        }
    }
}

enum DeviceStatusPrinter {
    static func print(_ status: DaemonStatus) {
        Swift.print("state: \(status.state)")
        Swift.print("passcode: \(status.passcodeSet ? "set" : "not set")")
        Swift.print("failed attempts: \(status.failedAttempts)")
        if let until = status.lockedOutUntil {
            Swift.print("unlock disabled for: \(Int(until.timeIntervalSinceNow.rounded(.up))) s")
        }
        Swift.print("auto-lock: \(status.autoLockSeconds.map { "\($0) s" } ?? "off")")
        if let pcrs = status.bootUnlockPCRs { Swift.print("boot unlock: sealed to PCRs \(pcrs)") }
        if status.testDevice { Swift.print("test device: yes (no lockout delays)") }
    }
}
