import Foundation
import KeychainFSEngine
import KeychainFSModel

/// The control protocol's version. A peer speaking another version is refused with errSecParam.
/// 2: the daemon greets first, and a request carries the greeting's challenge (``ControlGreeting``).
package let controlProtocolVersion: Int64 = 2

/// The daemon's first frame on a connection: a challenge the request must carry back. It is sent only
/// after the daemon has taken the connecting process's stamp (``PeerProcess/connecting(pid:uid:)``), so a
/// request that carries it was written after that stamp (docs/threat-model.md, "What a connection vouches for").
package struct ControlGreeting: Sendable, Equatable {
    package var challenge: Data

    package init() {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        challenge = Data(bytes)
    }

    var encoded: KeychainValue {
        .dictionary(["version": .number(controlProtocolVersion), "challenge": .data(challenge)])
    }

    init(decoding value: KeychainValue) throws(KeychainError) {
        guard case .dictionary(let d) = value, d["version"] == .number(controlProtocolVersion),
            case .data(let challenge)? = d["challenge"]
        else {
            throw KeychainError(
                SecStatus.param,
                "the daemon speaks another control protocol (this client speaks version \(controlProtocolVersion)): restart it with this keychainfs"
            )
        }
        self.challenge = challenge
    }
}

/// A request to the daemon: a command name and its arguments.
package struct ControlRequest: Sendable {
    package var command: ControlCommand
    package var arguments: KeychainDictionary
    /// Bytes sent in a second frame by a command that carries a file's content (``ControlCommand/attachmentLimit``):
    /// the client reads the user's file, the daemon never opens a path a client names.
    package var attachment: Data?
    /// The connection's greeting's challenge, set by the client as it sends (``ControlGreeting``).
    var challenge: Data?

    package init(_ command: ControlCommand, _ arguments: KeychainDictionary = [:], attachment: Data? = nil) {
        self.command = command
        self.arguments = arguments
        self.attachment = attachment
    }

    var encoded: KeychainValue {
        var d: KeychainDictionary = [
            "version": .number(controlProtocolVersion), "command": .string(command.rawValue),
            "arguments": .dictionary(arguments),
        ]
        if let challenge { d["challenge"] = .data(challenge) }
        return .dictionary(d)
    }

    init(decoding value: KeychainValue) throws(KeychainError) {
        guard case .dictionary(let d) = value, d["version"] == .number(controlProtocolVersion) else {
            throw KeychainError(
                SecStatus.param,
                "unsupported control protocol version (this daemon speaks version \(controlProtocolVersion))")
        }
        guard let name = d["command"]?.stringValue, let command = ControlCommand(rawValue: name) else {
            throw KeychainError(SecStatus.param, "unknown control command")
        }
        self.command = command
        self.arguments = d["arguments"]?.dictionaryValue ?? [:]
        if case .data(let challenge)? = d["challenge"] { self.challenge = challenge }
    }
}

/// The commands the daemon understands.
package enum ControlCommand: String, Sendable, CaseIterable {
    case status
    case deviceStatus = "device.status"
    case deviceLock = "device.lock"
    case deviceUnlock = "device.unlock"
    case deviceReboot = "device.reboot"
    case passcodeSet = "device.passcode.set"
    case passcodeChange = "device.passcode.change"
    case passcodeRemove = "device.passcode.remove"
    case autoLock = "device.auto-lock"
    /// Boot unlock for servers (docs/tpm.md): seal the passcode's KEK to boot-state PCRs, forget it, use it.
    case bootUnlockEnable = "device.boot-unlock.enable"
    case bootUnlockDisable = "device.boot-unlock.disable"
    case unlockTPM = "device.unlock.tpm"
    case unmount
    case itemAdd = "item.add"
    case itemCopyMatching = "item.copy-matching"
    case itemUpdate = "item.update"
    case itemDelete = "item.delete"
    /// SecItemAdd of an identity: its certificate and private key in one transaction.
    case itemAddIdentity = "item.add-identity"
    /// Sync (docs/spec.md §14): run a sync, make an invitation, report, and the merge driver's merge.
    case syncNow = "sync.now"
    case syncInit = "sync.init"
    case syncJoin = "sync.join"
    case syncInvite = "sync.invite"
    case syncStatus = "sync.status"
    case syncMerge = "sync.merge"
    /// The circle (docs/sync.md): who is in, remove a member, a new epoch, leave.
    case syncMembers = "sync.members"
    case syncRemove = "sync.remove"
    case syncRotate = "sync.rotate"
    case syncLeave = "sync.leave"
    /// `keychainfs backup`: the daemon answers the sealed archive (arguments: password); the client writes the file.
    case backup = "vault.backup"
    /// `keychainfs restore`: the client sends the archive it read as the attachment (arguments: password, merge).
    case restore = "vault.restore"
    // The authentication simulator (docs/spec.md §11).
    case biometryEnroll = "device.biometry.enroll"
    case biometryUnenroll = "device.biometry.unenroll"
    case biometryStatus = "device.biometry.status"
    case unlockBiometry = "device.unlock.biometry"
    case promptAnswer = "device.prompt.answer"
    case promptAuto = "device.prompt.auto"
    case promptTimeout = "device.prompt.timeout"
    case prompts = "device.prompts"
    case laCanEvaluate = "la.can-evaluate"
    case laEvaluate = "la.evaluate"
    case laInvalidate = "la.invalidate"
    /// The simulated Secure Enclave: generate, sign, key exchange (arguments: `request`, docs/spec.md §10).
    case keySecureEnclave = "key.secure-enclave"
}

extension ControlCommand {
    /// The largest attachment the command carries after its request frame; nil for none.
    package var attachmentLimit: Int? { self == .restore ? Keychain.maxBackupBytes : nil }

    /// Whether the command waits for one of the server's workers: everything but the device, prompt and
    /// status commands, which never queue behind other clients' calls.
    var usesWorker: Bool {
        switch scope {
        case .information, .permission(.device), .permission(.prompts): false
        case .items, .permission(.vault), .syncMerge: true
        }
    }
}

/// The daemon's answer: an OSStatus, a message, and a result value.
package struct ControlResponse: Sendable {
    package var status: OSStatus
    package var message: String
    package var result: KeychainValue?

    package init(status: OSStatus = SecStatus.success, message: String = "", result: KeychainValue? = nil) {
        self.status = status
        self.message = message
        self.result = result
    }

    package init(error: KeychainError) { self.init(status: error.status, message: error.message) }

    /// Throws the response's error, if it is one.
    package func check() throws(KeychainError) -> KeychainValue? {
        guard status == SecStatus.success else { throw KeychainError(status, message) }
        return result
    }

    var encoded: KeychainValue {
        var d: KeychainDictionary = ["status": .number(Int64(status)), "message": .string(message)]
        if let result { d["result"] = result }
        return .dictionary(d)
    }

    init(decoding value: KeychainValue) throws(KeychainError) {
        guard case .dictionary(let d) = value, let status = d["status"]?.numberValue, let s = Int32(exactly: status)
        else {
            throw KeychainError(SecStatus.decode, "malformed response from the daemon")
        }
        self.init(status: s, message: d["message"]?.stringValue ?? "", result: d["result"])
    }
}
