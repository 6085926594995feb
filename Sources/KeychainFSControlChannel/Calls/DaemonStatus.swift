import Foundation
import KeychainFSEngine
import KeychainFSModel

/// What a daemon answers to `status` and to every device command: the device's state, where the vault
/// is served, and (for `status` to a caller with groups) the item counts.
package struct DaemonStatus: Sendable, Equatable {
    package var state: String
    package var passcodeSet: Bool
    package var failedAttempts: Int
    package var testDevice: Bool
    package var lockedOutUntil: Date?
    package var autoLockSeconds: Int?
    package var vault: String
    package var mountpoint: String
    package var pid: Int32
    /// Items per class; nil when not counted.
    package var items: [String: Int]?
    /// Where the device key is: its file, or "sealed by the TPM at …" (empty from an older daemon).
    package var deviceKey: String
    /// The PCRs boot unlock is sealed to ("7"); nil when it is off.
    package var bootUnlockPCRs: String?

    package init(
        _ device: DeviceStatus, vault: String, mountpoint: String, pid: Int32, deviceKey: String,
        bootUnlockPCRs: String? = nil, items: [String: Int]? = nil
    ) {
        state = device.state.rawValue
        passcodeSet = device.passcodeSet
        failedAttempts = device.failedAttempts
        testDevice = device.testDevice
        lockedOutUntil = device.lockedOutUntil
        autoLockSeconds = device.autoLockSeconds
        self.vault = vault
        self.mountpoint = mountpoint
        self.pid = pid
        self.items = items
        self.deviceKey = deviceKey
        self.bootUnlockPCRs = bootUnlockPCRs
    }

    var encoded: KeychainValue {
        var d: KeychainDictionary = [
            "state": .string(state), "passcodeSet": .bool(passcodeSet),
            "failedAttempts": .number(Int64(failedAttempts)),
            "testDevice": .bool(testDevice), "vault": .string(vault), "mountpoint": .string(mountpoint),
            "pid": .number(Int64(pid)), "deviceKey": .string(deviceKey),
        ]
        if let lockedOutUntil { d["lockedOutUntil"] = .date(lockedOutUntil) }
        if let autoLockSeconds { d["autoLockSeconds"] = .number(Int64(autoLockSeconds)) }
        if let bootUnlockPCRs { d["bootUnlockPCRs"] = .string(bootUnlockPCRs) }
        if let items { d["items"] = .dictionary(items.mapValues { .number(Int64($0)) }) }
        return .dictionary(d)
    }

    init(decoding value: KeychainValue?) throws(KeychainError) {
        guard let d = value?.dictionaryValue, let state = d["state"]?.stringValue else {
            throw KeychainError(SecStatus.decode, "the daemon sent no status")
        }
        self.state = state
        passcodeSet = d["passcodeSet"] == .bool(true)
        failedAttempts = Int(d["failedAttempts"]?.numberValue ?? 0)
        testDevice = d["testDevice"] == .bool(true)
        if case .date(let until) = d["lockedOutUntil"] { lockedOutUntil = until }
        autoLockSeconds = d["autoLockSeconds"]?.numberValue.flatMap { Int(exactly: $0) }
        vault = d["vault"]?.stringValue ?? ""
        mountpoint = d["mountpoint"]?.stringValue ?? ""
        pid = Int32(truncatingIfNeeded: d["pid"]?.numberValue ?? 0)
        deviceKey = d["deviceKey"]?.stringValue ?? ""
        bootUnlockPCRs = d["bootUnlockPCRs"]?.stringValue
        items = d["items"]?.dictionaryValue?.compactMapValues { $0.numberValue.flatMap { Int(exactly: $0) } }
    }
}

/// A call answered with the daemon's status.
package protocol StatusReplyCall: ControlCall where Reply == DaemonStatus {}
extension StatusReplyCall {
    package static func encode(_ reply: DaemonStatus) -> KeychainValue? { reply.encoded }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> DaemonStatus {
        try DaemonStatus(decoding: value)
    }
}
