import ControlChannel
import Foundation
import KeychainEngine

/// Answers control requests with the engine: the simulator commands, status, unmount, and the
/// SecItem calls of API clients. Passcodes arrive as data and are never echoed or logged.
struct ControlHandler: Sendable {
    let keychain: Keychain
    let mountpoint: String
    let requestUnmount: @Sendable () -> Void

    func handle(_ request: ControlRequest) -> ControlResponse {
        do {
            return ControlResponse(result: try perform(request))
        } catch {
            return ControlResponse(error: error)
        }
    }

    private func perform(_ request: ControlRequest) throws(KeychainError) -> KeychainValue? {
        let args = request.arguments
        switch request.command {
        case .status, .deviceStatus:
            return status()
        case .deviceLock:
            keychain.lockDevice()
            return status()
        case .deviceReboot:
            keychain.rebootDevice()
            return status()
        case .deviceUnlock:
            try keychain.unlockDevice(passcode: try data(args, "passcode"))
            return status()
        case .passcodeSet:
            try keychain.setPasscode(try data(args, "passcode"))
            return status()
        case .passcodeChange:
            try keychain.changePasscode(old: try data(args, "old"), new: try data(args, "new"))
            return status()
        case .passcodeRemove:
            let deleted = try keychain.removePasscode(current: try data(args, "passcode"))
            return .dictionary(["deletedItems": .number(Int64(deleted))])
        case .autoLock:
            try keychain.setAutoLock(seconds: args["seconds"]?.numberValue.map { Int($0) })
            return status()
        case .unmount:
            requestUnmount()
            return nil
        case .itemAdd:
            return try keychain.add(try dictionary(args, "query"), caller: try caller(args))
        case .itemCopyMatching:
            return try keychain.copyMatching(try dictionary(args, "query"), caller: try caller(args))
        case .itemUpdate:
            try keychain.update(try dictionary(args, "query"), try dictionary(args, "attributes"), caller: try caller(args))
            return nil
        case .itemDelete:
            try keychain.delete(try dictionary(args, "query"), caller: try caller(args))
            return nil
        case .keySecureEnclave:
            return try keychain.secureEnclave(try dictionary(args, "request"), caller: try caller(args))
        }
    }

    private func status() -> KeychainValue {
        let s = keychain.deviceStatus()
        var d: KeychainDictionary = [
            "state": .string(s.state.rawValue), "passcodeSet": .bool(s.passcodeSet), "failedAttempts": .number(Int64(s.failedAttempts)),
            "testDevice": .bool(s.testDevice), "vault": .string(keychain.vault.directory), "mountpoint": .string(mountpoint),
            "pid": .number(Int64(getpid())),
        ]
        if let until = s.lockedOutUntil { d["lockedOutUntil"] = .date(until) }
        if let seconds = s.autoLockSeconds { d["autoLockSeconds"] = .number(Int64(seconds)) }
        if let counts = try? keychain.itemCounts() { d["items"] = .dictionary(counts.mapValues { .number(Int64($0)) }) }
        return .dictionary(d)
    }

    private func data(_ args: KeychainDictionary, _ key: String) throws(KeychainError) -> Data {
        guard let value = args[key]?.dataValue else { throw KeychainError(SecStatus.param, "missing '\(key)'") }
        return value
    }

    private func dictionary(_ args: KeychainDictionary, _ key: String) throws(KeychainError) -> KeychainDictionary {
        guard let value = args[key]?.dictionaryValue else { throw KeychainError(SecStatus.param, "missing '\(key)' dictionary") }
        return value
    }

    private func caller(_ args: KeychainDictionary) throws(KeychainError) -> Caller {
        guard let groups = args["accessGroups"]?.arrayValue else { return Caller() }
        let names = groups.compactMap(\.stringValue)
        guard names.count == groups.count else { throw KeychainError(SecStatus.param, "access groups must be strings") }
        return Caller(accessGroups: names)
    }
}
