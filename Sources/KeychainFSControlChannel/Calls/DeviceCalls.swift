import Foundation
import KeychainFSEngine
import KeychainFSModel

// The device-lock simulator's commands (docs/device.md). Each answers the daemon's status once its state
// is in force; passcodes travel as data and are never echoed.

/// `keychainfs status`: the daemon's vault, mount, device state and, for a caller with groups, item counts.
package struct StatusCall: StatusReplyCall, FieldlessCall {
    package static let command = ControlCommand.status
    package init() {}
}

/// `device status`.
package struct DeviceStatusCall: StatusReplyCall, FieldlessCall {
    package static let command = ControlCommand.deviceStatus
    package init() {}
}

/// `device lock`.
package struct DeviceLock: StatusReplyCall, FieldlessCall {
    package static let command = ControlCommand.deviceLock
    package init() {}
}

/// `device reboot`: back to before first unlock.
package struct DeviceReboot: StatusReplyCall, FieldlessCall {
    package static let command = ControlCommand.deviceReboot
    package init() {}
}

/// `device unlock` with the passcode.
package struct DeviceUnlock: StatusReplyCall, PasscodeCall {
    package static let command = ControlCommand.deviceUnlock
    package let passcode: Data
    package init(passcode: Data) { self.passcode = passcode }
}

/// `device passcode set`.
package struct PasscodeSet: StatusReplyCall, PasscodeCall {
    package static let command = ControlCommand.passcodeSet
    package let passcode: Data
    package init(passcode: Data) { self.passcode = passcode }
}

/// `device passcode change`.
package struct PasscodeChange: StatusReplyCall {
    package static let command = ControlCommand.passcodeChange
    package let old: Data
    package let new: Data
    package init(old: Data, new: Data) {
        self.old = old
        self.new = new
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        old = try arguments.data("old")
        new = try arguments.data("new")
    }
    package var arguments: KeychainDictionary { ["old": .data(old), "new": .data(new)] }
}

/// `device passcode remove`: answers how many WhenPasscodeSet items went with it.
package struct PasscodeRemove: ControlCall, PasscodeCall {
    package static let command = ControlCommand.passcodeRemove
    package let passcode: Data
    package init(passcode: Data) { self.passcode = passcode }
    package static func encode(_ deletedItems: Int) -> KeychainValue? {
        .dictionary(["deletedItems": .number(Int64(deletedItems))])
    }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> Int {
        Int(value?.dictionaryValue?["deletedItems"]?.numberValue ?? 0)
    }
}

/// `device boot-unlock enable`: the passcode, and the PCRs to seal its KEK to (docs/tpm.md).
package struct BootUnlockEnable: StatusReplyCall {
    package static let command = ControlCommand.bootUnlockEnable
    package let passcode: Data
    package let pcrs: PCRSelection
    package init(passcode: Data, pcrs: PCRSelection) {
        self.passcode = passcode
        self.pcrs = pcrs
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        passcode = try arguments.data("passcode")
        guard let parsed = PCRSelection(parsing: try arguments.string("pcrs")) else {
            throw KeychainError(SecStatus.param, "'pcrs' must be PCR numbers 0-23, comma-separated")
        }
        pcrs = parsed
    }
    package var arguments: KeychainDictionary { ["passcode": .data(passcode), "pcrs": .string(pcrs.description)] }
}

/// `device boot-unlock disable`.
package struct BootUnlockDisable: StatusReplyCall, FieldlessCall {
    package static let command = ControlCommand.bootUnlockDisable
    package init() {}
}

/// `device unlock --tpm` (and `mount --tpm-unlock`): the first unlock from the boot unlock's seal.
package struct DeviceUnlockWithTPM: StatusReplyCall, FieldlessCall {
    package static let command = ControlCommand.unlockTPM
    package init() {}
}

/// `device auto-lock SECONDS|off`: `seconds` nil turns it off; anything but a whole number is errSecParam,
/// never a silent "off".
package struct AutoLockCall: StatusReplyCall {
    package static let command = ControlCommand.autoLock
    package let seconds: Int?
    package init(seconds: Int?) { self.seconds = seconds }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
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
    package var arguments: KeychainDictionary { seconds.map { ["seconds": .number(Int64($0))] } ?? [:] }
}

/// The fields an API client adds to every request about itself (``KeychainConnection``): what it claims,
/// which counts only while no access rule decides (``PeerCaller``).
package enum CallerClaims {
    package static let accessGroups = "accessGroups"
    package static let pid = "pid"
    package static let executable = "executable"
    static let names: Set<String> = [accessGroups, pid, executable]
}

/// `keychainfs unmount`: the daemon detaches its mount and ends.
package struct UnmountCall: EmptyReplyCall, FieldlessCall {
    package static let command = ControlCommand.unmount
    package init() {}
}
