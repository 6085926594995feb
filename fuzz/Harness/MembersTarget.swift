import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSync

/// The circle's files (docs/sync.md) as every vault reads them from the repository: the membership log (parsed
/// and verified from its genesis entry), a log entry, the epoch keyring, a join request, a signed item
/// file's parts. Bad bytes are a typed error, never a crash or a hang; an entry that decodes encodes back
/// to the same bytes, and a log that verifies has a current member and an epoch of at least 1.
enum MembersTarget {
    static func run(_ data: Data) throws(PropertyViolation) {
        if let entries = try? MemberLog.parse(data) {
            guard MemberLog.encode(entries) == data else {
                throw PropertyViolation("a membership log does not survive parse and encode")
            }
        }
        if let membership = try? MemberLog.verify(data) {
            guard !membership.current.isEmpty, membership.epoch >= 1, membership.entries.count <= MemberLog.maxEntries
            else {
                throw PropertyViolation("a verified membership log has no current member or no epoch")
            }
        }
        if let entry = try? MemberLogEntry.decode(data), entry.encoded != data {
            throw PropertyViolation("a membership log entry does not survive decode and encode")
        }
        _ = try? EpochKeyring.parse(data)
        _ = try? JoinRequest.parse(data)
        if let parts = try? SignedSyncFile.parse(data) {
            guard parts.epoch >= 1, parts.signer.count == 32, parts.signature.count == 64 else {
                throw PropertyViolation("a signed item file parsed into parts of the wrong sizes")
            }
        }
    }
}
