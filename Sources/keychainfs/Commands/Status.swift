import ArgumentParser
import Foundation
import KeychainEngine
import KeychainModel

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show a running daemon's vault, mount, device state and item counts.")

    @OptionGroup var address: DaemonAddress

    func run() throws {
        guard let status = try address.send(.status)?.dictionaryValue else { throw CLIError("the daemon sent no status") }
        print("vault: \(status["vault"]?.stringValue ?? "?")")
        print("mount: \(status["mountpoint"]?.stringValue ?? "?")")
        print("pid: \(status["pid"]?.numberValue ?? 0)")
        DeviceStatusPrinter.print(status)
        if let items = status["items"]?.dictionaryValue {
            print("items: " + items.keys.sorted().map { "\($0) \(items[$0]?.numberValue ?? 0)" }.joined(separator: ", "))
        }
    }
}

enum DeviceStatusPrinter {
    static func print(_ status: KeychainDictionary) {
        Swift.print("state: \(status["state"]?.stringValue ?? "?")")
        Swift.print("passcode: \(status["passcodeSet"] == .bool(true) ? "set" : "not set")")
        Swift.print("failed attempts: \(status["failedAttempts"]?.numberValue ?? 0)")
        if case .date(let until) = status["lockedOutUntil"] {
            Swift.print("unlock disabled for: \(Int(until.timeIntervalSinceNow.rounded(.up))) s")
        }
        Swift.print("auto-lock: \(status["autoLockSeconds"]?.numberValue.map { "\($0) s" } ?? "off")")
        if status["testDevice"] == .bool(true) { Swift.print("test device: yes (no lockout delays)") }
    }
}
