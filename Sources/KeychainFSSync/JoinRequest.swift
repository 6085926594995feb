import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// A joiner's request (`requests/<the invitation's file name>`): its name and public keys, MACed with the
/// key its invitation code gives (``InvitationCode/requestKey()``). The inviter's vault, which kept that key,
/// admits the joiner on its next sync; a host without the code can neither read the invitation nor forge
/// a request.
package enum JoinRequest {
    /// Requests live here.
    package static let directory = "requests"
    /// The most bytes a request may have.
    package static let maxBytes = 4096

    /// The request of `member` for the invitation whose code gave `key`.
    static func seal(_ member: MemberKeys, key: GuardedKey) -> Data {
        ValueCodec.encode(
            .dictionary([
                "name": .string(member.name),
                "sign": .data(member.signingKey),  // not a schema code
                "box": .data(member.agreementKey),
                "mac": .data(mac(member, key: key)),
            ]))
    }

    /// The member a request names and its MAC (a fuzz target).
    package static func parse(_ bytes: Data) throws(SyncFormatError) -> (member: MemberKeys, mac: Data) {
        guard bytes.count <= maxBytes, let d = (try? ValueCodec.decode(bytes))?.dictionaryValue, d.count == 4,
            let name = d["name"]?.stringValue, MemberKeys.validName(name),
            let sign = d["sign"]?.dataValue, sign.count == Ed25519.publicKeyBytes,  // not a schema code
            let box = d["box"]?.dataValue, box.count == SealedBox.publicKeyBytes, let mac = d["mac"]?.dataValue
        else {
            throw SyncFormatError("a join request is malformed")
        }
        return (MemberKeys(name: name, signingKey: sign, agreementKey: box), mac)
    }

    /// The member a request names, if its MAC holds under `key`.
    static func open(_ bytes: Data, key: GuardedKey) throws(SyncFormatError) -> MemberKeys {
        let (member, tag) = try parse(bytes)
        guard Sodium.constantTimeEqual(tag, mac(member, key: key)) else {
            throw SyncFormatError("a join request's MAC does not hold (not made with the invitation code); refused")
        }
        return member
    }

    private static func mac(_ member: MemberKeys, key: GuardedKey) -> Data {
        KeyDerivation.keyedHash(
            [
                Data("keychainfs.sync.join-request.v2".utf8), Data(member.name.utf8), member.signingKey,
                member.agreementKey,
            ],
            key: key, outputBytes: 32)
    }
}
