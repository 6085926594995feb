import Foundation
import KeychainEngine
import KeychainModel

// The device-lock simulator's commands (docs/device.md). Each answers the daemon's status once its state
// is in force; passcodes travel as data and are never echoed.

/// `keychainfs status`: the daemon's vault, mount, device state and, for a caller with groups, item counts.
public struct StatusCall: StatusReplyCall {
    public static let command = ControlCommand.status
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
}

/// `device status`.
public struct DeviceStatusCall: StatusReplyCall {
    public static let command = ControlCommand.deviceStatus
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
}

/// `device lock`.
public struct DeviceLock: StatusReplyCall {
    public static let command = ControlCommand.deviceLock
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
}

/// `device reboot`: back to before first unlock.
public struct DeviceReboot: StatusReplyCall {
    public static let command = ControlCommand.deviceReboot
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
}

/// `device unlock` with the passcode.
public struct DeviceUnlock: StatusReplyCall {
    public static let command = ControlCommand.deviceUnlock
    public let passcode: Data
    public init(passcode: Data) { self.passcode = passcode }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        passcode = try arguments.data("passcode")
    }
    public var arguments: KeychainDictionary { ["passcode": .data(passcode)] }
}

/// `device passcode set`.
public struct PasscodeSet: StatusReplyCall {
    public static let command = ControlCommand.passcodeSet
    public let passcode: Data
    public init(passcode: Data) { self.passcode = passcode }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        passcode = try arguments.data("passcode")
    }
    public var arguments: KeychainDictionary { ["passcode": .data(passcode)] }
}

/// `device passcode change`.
public struct PasscodeChange: StatusReplyCall {
    public static let command = ControlCommand.passcodeChange
    public let old: Data
    public let new: Data
    public init(old: Data, new: Data) {
        self.old = old
        self.new = new
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        old = try arguments.data("old")
        new = try arguments.data("new")
    }
    public var arguments: KeychainDictionary { ["old": .data(old), "new": .data(new)] }
}

/// `device passcode remove`: answers how many WhenPasscodeSet items went with it.
public struct PasscodeRemove: ControlCall {
    public static let command = ControlCommand.passcodeRemove
    public let passcode: Data
    public init(passcode: Data) { self.passcode = passcode }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        passcode = try arguments.data("passcode")
    }
    public var arguments: KeychainDictionary { ["passcode": .data(passcode)] }
    public static func encode(_ deletedItems: Int) -> KeychainValue? {
        .dictionary(["deletedItems": .number(Int64(deletedItems))])
    }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> Int {
        Int(value?.dictionaryValue?["deletedItems"]?.numberValue ?? 0)
    }
}

/// `device auto-lock SECONDS|off`: `seconds` nil turns it off; anything but a whole number is errSecParam,
/// never a silent "off".
public struct AutoLockCall: StatusReplyCall {
    public static let command = ControlCommand.autoLock
    public let seconds: Int?
    public init(seconds: Int?) { self.seconds = seconds }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        if let unknown = arguments.values.keys.first(where: { $0 != "seconds" && !CallerClaims.names.contains($0) }) {
            throw KeychainError(SecStatus.param, "unknown auto-lock argument '\(unknown)'")
        }
        guard let value = arguments.values["seconds"] else { seconds = nil; return }
        guard case .number(let number) = value, let whole = Int(exactly: number) else {
            throw KeychainError(
                SecStatus.param, "auto-lock 'seconds' must be a whole number (omit it to turn auto-lock off)")
        }
        seconds = whole
    }
    public var arguments: KeychainDictionary { seconds.map { ["seconds": .number(Int64($0))] } ?? [:] }
}

/// The fields an API client adds to every request about itself (``KeychainConnection``): what it claims,
/// which counts only while no access rule decides (``PeerCaller``).
public enum CallerClaims {
    public static let accessGroups = "accessGroups"
    public static let pid = "pid"
    public static let executable = "executable"
    static let names: Set<String> = [accessGroups, pid, executable]
}

/// `keychainfs unmount`: the daemon detaches its mount and ends.
public struct UnmountCall: EmptyReplyCall {
    public static let command = ControlCommand.unmount
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
}
