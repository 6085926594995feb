import Foundation
import KeychainFSEngine
import KeychainFSSync
import KeychainFSModel

/// The sync repository's files (docs/spec.md §14) as the merge driver and `sync` read them: a record, the padded
/// plaintext of an item file, an invitation file, an invitation code. Bad bytes are a typed error, never a
/// crash; a record that decodes encodes back to bytes that decode to the same record.
enum SyncFilesTarget {
    static func run(_ data: Data) throws(PropertyViolation) {
        if let record = try? SyncRecord.decode(data) {
            guard let again = try? SyncRecord.decode(record.encoded), again.encoded == record.encoded else {
                throw PropertyViolation("a sync record does not survive encode and decode")
            }
        }
        _ = try? SyncFile.unpad(data)
        _ = try? InvitationFile.parse(data)
        _ = try? InvitationCode.parse(String(decoding: data, as: UTF8.self))
    }
}
