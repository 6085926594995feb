import Foundation
import KeychainFSEngine
import KeychainFSModel

/// org.freedesktop.Secret.Service.
extension ServiceObjects {
    func serviceMethod(_ call: BusCall, _ caller: Caller) throws(BusError) -> [BusValue] {
        switch call.member {
        case "OpenSession":
            let args = try CallArguments(call, signature: "sv")
            guard case .variant(let input) = args[1] else { throw .invalidArgs("OpenSession's input is a variant") }
            let crypto: SessionCrypto, output: BusValue
            switch args.string(0) {
            case SessionCrypto.plainAlgorithm:
                (crypto, output) = (.plain, .string(""))
            case SessionCrypto.dhAlgorithm:
                guard let clientPublic = input.bytesValue else {
                    throw .invalidArgs("\(SessionCrypto.dhAlgorithm) takes the client's public value as ay")
                }
                let (agreed, ownPublic) = try SessionCrypto.agree(clientPublic: clientPublic)
                (crypto, output) = (agreed, .bytes(ownPublic))
            default:
                throw BusError(
                    "org.freedesktop.DBus.Error.NotSupported",
                    "unknown algorithm '\(args.string(0))': use \(SessionCrypto.plainAlgorithm) or \(SessionCrypto.dhAlgorithm)"
                )
            }
            let id = try sessions.open(owner: call.sender, crypto: crypto)
            return [.variant(output), .objectPath(ObjectPath.sessionPath(id))]
        case "SearchItems":
            let args = try CallArguments(call, signature: "a{ss}")
            let wanted = try ItemMapping.attributes(args[0])
            // While locked the attributes are sealed (as on iOS), so nothing can match: the client sees the
            // collection Locked and calls Unlock, as it does for a locked gnome-keyring.
            guard keychain.isAvailable(.whenUnlocked) else { return [.paths([]), .paths([])] }
            let found = try face.search(wanted, caller)
            let unlocked = found.filter { keychain.isAvailable($0.accessibility) }.map {
                ObjectPath.itemPath($0.reference)
            }
            let locked = found.filter { !keychain.isAvailable($0.accessibility) }.map {
                ObjectPath.itemPath($0.reference)
            }
            return [.paths(unlocked), .paths(locked)]
        case "GetSecrets":
            let args = try CallArguments(call, signature: "aoo")
            let crypto = try sessions.crypto(args.string(1), caller: call.sender)
            var entries: [BusValue.DictionaryEntry] = []
            for path in args.paths(0) {
                guard case .item(let reference)? = ObjectPath.parse(path),
                    let (item, secret) = try face.itemAndSecret(reference, caller)
                else { continue }
                let sealed = try crypto.seal(secret)
                entries.append(
                    .init(
                        .objectPath(path),
                        CallArguments.secret(
                            session: args.string(1), parameters: sealed.parameters,
                            value: sealed.value, contentType: item.contentType)))
            }
            return [.dictionary(key: "o", value: "(oayays)", entries)]
        case "Unlock":
            let args = try CallArguments(call, signature: "ao")
            let objects = args.paths(0)
            if keychain.isAvailable(.whenUnlocked) { return [.paths(objects), .objectPath(ObjectPath.none)] }
            let id = try prompts.add(owner: call.sender, objects: objects)
            return [.paths([]), .objectPath(ObjectPath.promptPath(id))]
        case "Lock":
            let args = try CallArguments(call, signature: "ao")
            guard accessPolicy.permits(caller, .device) || !enforcesAccess else {
                throw .accessDenied(
                    "locking the device needs a rule of access.toml that matches this process with allow = [\"device\"]"
                )
            }
            guard keychain.deviceStatus().passcodeSet else {
                throw .failed("the device has no passcode, so it cannot lock (keychainfs device passcode set)")
            }
            keychain.lockDevice()
            return [.paths(args.paths(0)), .objectPath(ObjectPath.none)]
        case "ReadAlias":
            let args = try CallArguments(call, signature: "s")
            return [
                .objectPath(ObjectPath.aliases.contains(args.string(0)) ? ObjectPath.collectionPath : ObjectPath.none)
            ]
        case "SetAlias":
            let args = try CallArguments(call, signature: "so")
            guard ObjectPath.aliases.contains(args.string(0)), ObjectPath.parse(args.string(1)) == .collection else {
                throw Self.oneCollection
            }
            return []
        case "CreateCollection":
            let args = try CallArguments(call, signature: "a{sv}s")
            guard ObjectPath.aliases.contains(args.string(1)) else { throw Self.oneCollection }
            return [.objectPath(ObjectPath.collectionPath), .objectPath(ObjectPath.none)]
        default:
            throw .unknownMethod("no method \(call.member) of \(Self.serviceInterface)")
        }
    }

    /// What CreateCollection and SetAlias answer for anything but the vault's own collection.
    static let oneCollection = BusError(
        "org.freedesktop.DBus.Error.NotSupported",
        "keychainfs serves one collection per vault (aliases default and login); mount another vault "
            + "with --secret-service on another bus to keep secrets apart")
}
